// Package worker runs the Partner API contract's worker order: claim →
// download into the spool with progress → verify → store durably →
// acknowledge → done, reporting each step as an Event.
//
// The one rule it exists to enforce: an entry is acknowledged only when it
// was requested AND the byte count, both SHA-256 comparisons, both size
// comparisons and the trailer passed AND the durable write succeeded AND
// the lease still runs. On any failure nothing is acknowledged; the lease
// simply expires and the entry becomes due again (or failed after the
// server's attempt limit).
//
// # Three layers
//
//   - Lease (Worker.Claim): one claimed entry. The claim token lives only
//     in it; Fetch downloads, checks and stores, Ack acknowledges. The
//     lease is counted on the server's clock (expiresAt − the answer's
//     Date), bounds the work in flight, and is never acknowledged once
//     over.
//   - Runner: the worker order for a connection, entry after entry. It
//     is the one implementation behind the app's P and W keys and the
//     CLI's fetch --next and fetch --all: which entry is the head, one
//     claim per connection, no second claim during a lease of ours,
//     never an entry twice in a run, run until the first failure, and
//     the phase (Phase) the current claim is in.
//
// # How faces use the Runner
//
// A face (cmd/b2bx, tui/conntab) translates, it does not decide. Every
// rule a face needs is a method on the Runner, tested here: Refuse (may
// this entry be claimed now?), PassesOver (is this row the head?),
// Active (would closing lose a lease?), CanFetch and CanAck (may "d" and
// "a" run?), LeaseLeft, GoOn (does W take the next entry?). A face keeps
// no copy of the phase; it renders Current.
//
// Every worker order a face gives — P, W, the marked entries, fetch
// --next, fetch ID, fetch --all — is an Order the Runner holds (Start).
// The Runner decides each move (Next: search the head, claim this entry,
// fetch, acknowledge, or the end and why); a face never keeps flags of
// its own about where a run stands. The steps are separate methods
// (Head, Claim, Fetch, Ack, Drop, Clear) so an interactive face performs
// each move in its own command, shows it, and can cancel it; Run performs
// them all for a face that waits (Process and All are Run). The Runner
// also knows the head a face shows (NoteListing, HeadID) and writes the
// seen journal (RunnerOptions.Journal) for both faces.
// Begin does no I/O, so a face calls it in its update function and the
// claim is visible as "claiming" at once. The Runner is safe for
// concurrent use: the display reads it while a step runs elsewhere.
//
// Progress is never an event per chunk: the transfer counts bytes into
// an apiclient.Progress (atomics, hashing through the same buffer) that
// the face polls on its own tick, about 10 Hz, only while a download
// runs; each step's end is one Event (FetchOptions.OnEvent or
// ClaimOptions.OnEvent) or one returned Result. OnEvent runs on the step's goroutine:
// a face stores an atomic there, it does not touch its model.
//
// A download stopped on this side (cancelled, the lease ran out, a write
// failed) ran no check: Result.Checks reports each as StateNotRun with
// the cause (Result.NotRunCause), never StateFailed, and Classify does
// not call it an integrity failure.
package worker

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Worker processes mailbox entries of one connection.
type Worker struct {
	client *apiclient.Client
	store  *spool.Store
	log    *slog.Logger
	now    func() time.Time
}

// New returns a worker storing the client's connection's payloads in store.
// logger may be nil. It logs only step names, IDs and correlation, never a
// token or payload.
func New(client *apiclient.Client, store *spool.Store, logger *slog.Logger) *Worker {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Worker{client: client, store: store, log: logger, now: time.Now}
}

// Result is what happened to one entry.
type Result struct {
	Entry         apiclient.Entry
	CorrelationID string
	// Report is the integrity report once the payload answer started.
	Report *apiclient.IntegrityReport
	// Stored is set once the payload is durable (AlreadyStored: the same
	// bytes were in the spool already).
	Stored *spool.Stored
	// Receipt is set once acknowledged; Receipt.Replay tells a repeated
	// acknowledge.
	Receipt      *apiclient.Receipt
	Acknowledged bool
	// LeaseExpiresAt is the claim's end; when the entry was claimed but
	// not acknowledged the lease runs out then and the entry becomes due
	// again.
	LeaseExpiresAt time.Time
	// FailedStep is "" on success.
	FailedStep Step
	// Err is the *StepError of the failed step, nil on success.
	Err error
}

// OK reports whether every requested step succeeded.
func (r *Result) OK() bool { return r.Err == nil }

// StepError is the error of a failed step. Its text is terminal-safe and
// says what happened to the lease and what to do.
type StepError struct {
	Step              Step
	DeliveryAttemptID string
	Err               error
	// LeaseExpiresAt is non-zero when the entry was claimed and left
	// unacknowledged.
	LeaseExpiresAt time.Time
	// Acknowledged is true for StepRecord: the server has the
	// acknowledgement, only the local record failed.
	Acknowledged bool
	// CorrelationID ties the failed step's requests and log lines
	// together (not part of Error's text).
	CorrelationID string
}

func (e *StepError) Error() string {
	id := termsafe.String(e.DeliveryAttemptID)
	msg := fmt.Sprintf("%s %s: %s", e.Step, id, termsafe.String(e.Err.Error()))
	switch {
	case e.Acknowledged:
		return msg + "; the delivery IS acknowledged and stored, only its receipt is missing from the local metadata — free disk space or fix permissions; the receipt is in this output"
	case !e.LeaseExpiresAt.IsZero():
		return msg + fmt.Sprintf("; not acknowledged: the lease expires at %s and the entry becomes due again", e.LeaseExpiresAt.UTC().Format(time.RFC3339))
	}
	return msg + "; not acknowledged"
}

// Unwrap gives the step's cause.
func (e *StepError) Unwrap() error { return e.Err }
