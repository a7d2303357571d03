package outbox

import "context"

// Batcher is a Remote that runs several pushes in one transaction, one
// durable commit for all (*teamstore.Remote): fn's pushes all land, or
// none does.
type Batcher interface {
	Batch(ctx context.Context, fn func(ctx context.Context) error) error
}

// maxBatch bounds the entries pushed in one transaction (and so what one
// failure sends back to be pushed one by one).
const maxBatch = 64

// pushBatch pushes up to maxBatch entries from the head of the queue in
// one transaction and records them in order. single is how many entries
// at the head the caller pushes one by one instead: all of the batch when
// its transaction failed (none of it landed), the head when it cannot be
// prepared (pushOne says why). err only for the ledger's write or a
// stopped ctx.
func (p *Pusher) pushBatch(ctx context.Context, b Batcher) (single int, err error) {
	n := min(len(p.queue), maxBatch)
	ids := make([]string, n)
	var pushes []func(context.Context) error
	inBatch := map[string]bool{}
	for i, q := range p.queue[:n] {
		id, push, err := p.prepare(q.e)
		if err != nil { // a local problem: the batch ends before it
			n = i
			break
		}
		if id == "" || p.pushed[id] || inBatch[id] {
			continue // nothing to push for it
		}
		inBatch[id] = true
		ids[i] = id
		pushes = append(pushes, push)
	}
	if n == 0 {
		return 1, nil
	}
	if len(pushes) > 0 {
		c, cancel := context.WithTimeout(ctx, p.opts.PushTimeout)
		err := b.Batch(c, func(c context.Context) error {
			for _, push := range pushes {
				if err := push(c); err != nil {
					return err
				}
			}
			return nil
		})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return n, nil
		}
		p.reached()
	}
	for i := range n {
		q := p.queue[0]
		id := ids[i]
		if id != "" && p.opts.afterPush != nil {
			p.opts.afterPush()
		}
		p.queue = p.queue[1:]
		if err := p.commit(id, q.end); err != nil {
			return 0, err
		}
	}
	return 0, nil
}
