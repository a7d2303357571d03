// Package worker runs the Partner API contract's worker order for one
// mailbox entry: claim → download into the spool with progress → verify →
// store durably → acknowledge → done, reporting each step as an Event.
// The CLI (b2bx fetch) and the TUI both drive it.
//
// The one rule it exists to enforce: an entry is acknowledged only when it
// was requested AND the byte count, both SHA-256 comparisons, both size
// comparisons and the trailer passed AND the durable write succeeded. On
// any failure nothing is acknowledged; the lease simply expires and the
// entry becomes due again (or failed after the server's attempt limit).
package worker

import (
	"context"
	"errors"
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

// Options controls one Process call.
type Options struct {
	// Ack requests the acknowledge step. Without it the entry is stored
	// and its lease left to expire.
	Ack bool
	// OnEvent, if set, receives each step event on the worker's goroutine;
	// it must return quickly.
	OnEvent func(Event)
	// Progress receives the download's progress; nil: a fresh one (still
	// reachable through the Downloading event).
	Progress *apiclient.Progress
	// Export, if set, runs after the durable store and before the
	// acknowledge, e.g. to copy the verified file where the operator's
	// processing picks it up. Its failure is a StepExport failure, and
	// then nothing is acknowledged.
	Export func(st *spool.Stored) error
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

// run carries one Process call's state.
type run struct {
	w    *Worker
	ctx  context.Context
	opts Options
	res  *Result
}

func (r *run) emit(ev Event) {
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(ev)
	}
}

// fail records the failed step, emits Failed and returns the result.
func (r *run) fail(step Step, err error) *Result {
	se := &StepError{Step: step, DeliveryAttemptID: r.res.Entry.DeliveryAttemptID, Err: err, Acknowledged: r.res.Acknowledged}
	if !r.res.Acknowledged {
		se.LeaseExpiresAt = r.res.LeaseExpiresAt
	}
	r.res.FailedStep, r.res.Err = step, se
	r.w.log.LogAttrs(r.ctx, slog.LevelWarn, "worker step failed",
		slog.String("step", string(step)),
		slog.String("connectionId", r.w.client.ConnectionID()),
		slog.String("deliveryAttemptId", r.res.Entry.DeliveryAttemptID),
		slog.String("correlationId", r.res.CorrelationID),
		slog.Bool("acknowledged", r.res.Acknowledged))
	r.emit(Failed{Step: step, Err: se})
	return r.res
}

func (r *run) done(step Step) {
	r.w.log.LogAttrs(r.ctx, slog.LevelDebug, "worker step done",
		slog.String("step", string(step)),
		slog.String("connectionId", r.w.client.ConnectionID()),
		slog.String("deliveryAttemptId", r.res.Entry.DeliveryAttemptID),
		slog.String("correlationId", r.res.CorrelationID))
}

// Process runs claim, download, verify, store and (with opts.Ack)
// acknowledge for entry, which must come from the mailbox listing: its
// size and hash are the listing values the download is checked against.
// The returned Result is never nil; Result.Err (also returned) is a
// *StepError naming the failed step. Cancelling ctx stops the current step;
// nothing is acknowledged after a failure.
func (w *Worker) Process(ctx context.Context, entry apiclient.Entry, opts Options) (*Result, error) {
	corr := apiclient.NewCorrelationID()
	ctx = apiclient.WithCorrelationID(ctx, corr)
	r := &run{w: w, ctx: ctx, opts: opts, res: &Result{Entry: entry, CorrelationID: corr}}
	res := r.process()
	return res, res.Err
}

func (r *run) process() *Result {
	w, id := r.w, r.res.Entry.DeliveryAttemptID
	conn := w.client.ConnectionID()
	// Stage before claiming: a spool that cannot even create a file must
	// not cost the entry a lease and an attempt.
	staged, err := w.store.Begin(conn, id)
	if err != nil {
		return r.fail(StepStore, err)
	}
	defer staged.Abort() // no-op after a successful Commit

	claim, err := w.client.Claim(r.ctx, id)
	if err != nil {
		return r.fail(StepClaim, err)
	}
	r.res.LeaseExpiresAt = claim.ExpiresAt
	r.done(StepClaim)
	r.emit(Claimed{Entry: r.res.Entry, ExpiresAt: claim.ExpiresAt})

	if step, err := r.download(claim, staged); err != nil {
		return r.fail(step, err)
	}

	stored, err := staged.Commit(spool.Meta{
		ConnectionID:      conn,
		DeliveryAttemptID: id,
		InterchangeID:     r.res.Entry.InterchangeID,
		MessageType:       r.res.Entry.MessageType,
		Size:              r.res.Report.Bytes,
		SHA256:            r.res.Report.SHA256,
		ReceivedAt:        w.now(),
	})
	if err != nil {
		return r.fail(StepStore, err)
	}
	r.res.Stored = stored
	r.done(StepStore)
	r.emit(Stored{Stored: stored})

	if r.opts.Export != nil {
		if err := r.opts.Export(stored); err != nil {
			return r.fail(StepExport, err)
		}
		r.done(StepExport)
	}
	if !r.opts.Ack {
		return r.res
	}
	return r.acknowledge(claim)
}

// download streams into the staged file and classifies a failure: a
// write error of the spool is a storage failure, a broken stream or
// missing answer a download failure, a mismatch a verify failure.
func (r *run) download(claim *apiclient.Claim, staged *spool.Staged) (Step, error) {
	p := r.opts.Progress
	if p == nil {
		p = &apiclient.Progress{}
	}
	r.emit(Downloading{Entry: r.res.Entry, Progress: p})
	rep, err := r.w.client.Download(r.ctx, claim, r.res.Entry.Expect(), staged, p)
	r.res.Report = rep
	switch {
	case staged.Err() != nil:
		return StepStore, staged.Err()
	case err == nil && (rep == nil || !rep.OK()):
		// Download's contract says this cannot happen; refuse anyway,
		// acknowledging unverified bytes is the one unforgivable bug.
		return StepVerify, errors.New("download returned no error but the report is not OK")
	case err == nil:
		r.done(StepVerify)
		r.emit(Verified{Report: rep})
		return "", nil
	case rep == nil || rep.ReadErr != nil || rep.SinkErr != nil:
		return StepDownload, err
	}
	return StepVerify, err
}

func (r *run) acknowledge(claim *apiclient.Claim) *Result {
	if r.res.Report == nil || !r.res.Report.OK() || r.res.Stored == nil {
		return r.fail(StepAcknowledge, errors.New("refusing to acknowledge: not every check passed"))
	}
	rcpt, err := r.w.client.Acknowledge(r.ctx, claim)
	if err != nil {
		return r.fail(StepAcknowledge, err)
	}
	r.res.Receipt, r.res.Acknowledged = rcpt, true
	r.done(StepAcknowledge)
	r.emit(Acknowledged{Receipt: rcpt})
	at := rcpt.AcknowledgedAt
	if at.IsZero() {
		at = r.w.now()
	}
	st, err := r.w.store.MarkAcknowledged(r.w.client.ConnectionID(), r.res.Entry.DeliveryAttemptID, rcpt.ReceiptID, at)
	if err != nil {
		return r.fail(StepRecord, err)
	}
	r.res.Stored.Meta = st.Meta
	return r.res
}
