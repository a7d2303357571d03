package track

import (
	"context"
)

// batcher collects changes and applies them in transactions of a bounded
// size, so a rebuild never holds the write lock long enough to make
// another process wait out its busy timeout.
type batcher struct {
	ctx     context.Context
	x       *Index
	fresh   bool // a rebuild: nothing to replace
	cur     Batch
	n       int
	visited map[string]bool
}

const batchItems = 2000

func (b *batcher) visit(p string) {
	if b.visited == nil {
		b.visited = map[string]bool{}
	}
	b.visited[p] = true
}

func (b *batcher) set(si SourceItems) error {
	b.cur.Set = append(b.cur.Set, si)
	b.n += 1 + len(si.Items)
	if b.n >= batchItems {
		return b.flush()
	}
	return nil
}

func (b *batcher) forget(p string) {
	b.cur.Forget = append(b.cur.Forget, p)
	b.n++
}

func (b *batcher) flush() error {
	if len(b.cur.Set) == 0 && len(b.cur.Forget) == 0 {
		return nil
	}
	b.cur.Fresh = b.fresh && len(b.cur.Forget) == 0
	err := b.x.b.Apply(b.ctx, b.cur)
	b.cur, b.n = Batch{}, 0
	return writeErr(err)
}
