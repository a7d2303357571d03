package worker

import (
	"context"

	"github.com/nutrab2b/b2bx/apiclient"
)

// ProcessHeld is Process that stops after the durable store (and the
// export, if any) and hands the lease back instead of acknowledging: the
// operator may inspect the stored file first, then call Lease.Ack within
// the lease (the same token; it is refused unless every integrity check
// and the store passed, see Lease.CanAck) or Lease.Release to let the
// lease run out. opts.Ack is ignored.
//
// The lease is returned whenever a claim was made, also after a failed
// download (so its expiry can be shown); nil when nothing was claimed.
// The caller owns it and must Ack or Release it. The Result is never nil;
// its Err (also returned) names the failed step.
func (w *Worker) ProcessHeld(ctx context.Context, entry apiclient.Entry, opts Options) (*Lease, *Result, error) {
	l, res := w.claim(ctx, entry, ClaimOptions{PreflightExport: opts.PreflightExport, OnEvent: opts.OnEvent})
	if l == nil {
		return nil, res, res.Err
	}
	res, err := l.Fetch(ctx, FetchOptions{Progress: opts.Progress, Export: opts.Export})
	return l, res, err
}
