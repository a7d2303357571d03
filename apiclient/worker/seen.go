package worker

import (
	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Journal is where a Runner writes what it saw of the entries it did not
// store and acknowledge (the seen journal the timeline reads):
// *spool.Store fits.
type Journal interface {
	NoteSeen(rec spool.SeenRecord) error
}

// SeenRecord is the seen-journal line for res on connection conn: the
// lease taken and left unused, the payload refused by a check, the step
// that failed. False when there is nothing to note: acknowledged, or
// stored (the sidecar tells the rest), or never claimed nor failed.
func SeenRecord(conn string, res *Result) (spool.SeenRecord, bool) {
	if res == nil || res.Acknowledged || res.Entry.DeliveryAttemptID == "" || conn == "" {
		return spool.SeenRecord{}, false
	}
	rec := spool.SeenRecord{ConnectionID: conn, DeliveryAttemptID: res.Entry.DeliveryAttemptID, InterchangeID: res.Entry.InterchangeID,
		MessageType: res.Entry.MessageType, CreatedAt: res.Entry.CreatedAt, LeaseExpiresAt: res.LeaseExpiresAt}
	switch {
	case res.Report != nil && len(res.Report.Failed()) > 0:
		rec.State, rec.Step = spool.SeenRefused, string(res.FailedStep)
		for _, f := range res.Report.Failed() {
			rec.Checks = append(rec.Checks, f.Name)
		}
	case res.FailedStep != "":
		rec.State, rec.Step = spool.SeenFailed, string(res.FailedStep)
	case res.Stored != nil:
		return spool.SeenRecord{}, false // stored, not acknowledged: the sidecar says so
	case !res.LeaseExpiresAt.IsZero():
		rec.State = spool.SeenClaimed
	default:
		return spool.SeenRecord{}, false
	}
	if res.Err != nil {
		rec.Error = res.Err.Error()
	}
	return rec, true
}

// unusedLease is the Result of a claim dropped before its download: a
// lease taken and left to run out.
func unusedLease(e apiclient.Entry, h Held) *Result {
	return &Result{Entry: e, CorrelationID: h.CorrelationID(), LeaseExpiresAt: h.ExpiresAt()}
}

// noteSeenLocked queues res's seen-journal line; the journal is written by
// flushSeen, after the step is over and outside the lock (r.mu held).
func (r *Runner) noteSeenLocked(res *Result) {
	if r.journal == nil {
		return
	}
	if rec, ok := SeenRecord(r.conn, res); ok {
		r.seen = append(r.seen, rec)
	}
}

// FlushSeen writes the seen-journal lines the runner's steps queued.
// The step methods (Claim, Fetch, Ack, Process, All, Run) flush at their
// ends by themselves; only Drop and Clear, which do no I/O (a face calls
// them in its update function), leave their line queued: a face then
// calls FlushSeen off its update function. A journal that cannot be
// written loses a line of the story only: the error goes to
// RunnerOptions.SeenError.
func (r *Runner) FlushSeen() {
	r.mu.Lock()
	recs := r.seen
	r.seen = nil
	r.mu.Unlock()
	for _, rec := range recs {
		if err := r.journal.NoteSeen(rec); err != nil && r.seenErr != nil {
			r.seenErr(err)
		}
	}
}
