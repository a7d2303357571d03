package track

import (
	"context"
	"errors"
	"hash/fnv"
	"sort"

	"github.com/jackc/pgx/v5/pgconn"
)

// Apply implements Backend. The sources of the batch are locked first (an
// advisory lock per path, in path order): two engineers pushing the same
// delivery at once replace it one after the other, never both insert it.
func (p *Postgres) Apply(ctx context.Context, b Batch) error {
	err := p.apply(ctx, b)
	var pe *pgconn.PgError
	if b.Fresh && errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		b.Fresh = false
		err = p.apply(ctx, b)
	}
	return err
}

// ApplyTx runs batch b inside tx (the team store writes a record and its
// items in one transaction).
func (p *Postgres) ApplyTx(ctx context.Context, tx *TxHandle, b Batch) error {
	w := writer{ctx: ctx, tx: tx.t}
	lockSources(&w, b)
	w.run(b)
	return w.err
}

func (p *Postgres) apply(ctx context.Context, b Batch) error {
	tx, err := p.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w := writer{ctx: ctx, tx: tx}
	lockSources(&w, b)
	w.run(b)
	if w.err != nil {
		return w.err
	}
	return tx.Commit()
}

func lockSources(w *writer, b Batch) {
	var keys []int64
	for _, si := range b.Set {
		keys = append(keys, pathLock(si.Source.Path))
	}
	for _, f := range b.Forget {
		keys = append(keys, pathLock(f))
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for i, k := range keys {
		if i > 0 && keys[i-1] == k {
			continue
		}
		w.exec(`SELECT pg_advisory_xact_lock(?)`, k)
	}
}

// pathLock is the advisory lock key of a source path.
func pathLock(path string) int64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	return int64(h.Sum64())
}
