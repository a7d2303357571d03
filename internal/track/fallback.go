package track

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// QueryWait bounds how long a query (find, a timeline, a bundle, the
// start screen) waits for another process writing the index before it
// answers from the files instead.
const QueryWait = 5 * time.Second

// OpenQuery opens and syncs the machine's index for a query. When the
// database file cannot be used — the data directory is read-only, the
// disk is full, track.db is not a file, another process holds it longer
// than QueryWait (said before the wait) — the files, which are the
// source of truth, answer through an index built in memory: slower, and
// said once through say. A rebuild of the file is said as Open says it.
func (m *Machine) OpenQuery(ctx context.Context, say func(string)) (*Index, error) {
	return openQuery(ctx, Options{Dir: m.Dir, Roots: m.Roots, Say: say, Wait: QueryWait})
}

func openQuery(ctx context.Context, opts Options) (*Index, error) {
	say := opts.Say
	if say == nil {
		say = func(string) {}
	}
	x, err := Open(ctx, opts)
	if err == nil {
		if s, ok := x.raw.(*SQLite); ok && s.Busy(ctx) {
			say(fmt.Sprintf("another b2bx process is writing the tracking index: waiting at most %s, then answering from the stored files", opts.Wait))
		}
		if _, err = x.Sync(ctx); err == nil {
			return x, nil
		}
		x.Close()
	}
	if ctx.Err() != nil {
		return nil, err
	}
	mem, merr := OpenMemory(ctx)
	if merr != nil {
		return nil, errors.Join(err, merr)
	}
	mopts := opts
	mopts.Backend, mopts.Say = mem, nil
	y, merr := Open(ctx, mopts)
	if merr != nil {
		mem.Close()
		return nil, errors.Join(err, merr)
	}
	if _, merr := y.Sync(ctx); merr != nil {
		y.Close()
		return nil, errors.Join(err, merr)
	}
	y.fallback = err.Error()
	say(fmt.Sprintf("the tracking index %s cannot be used (%v): answering from the stored files, read into memory (slower)", DBPath(opts.Dir), err))
	return y, nil
}

// Fallback says why the index is in memory, read from the files ("" when
// it is the database file).
func (x *Index) Fallback() string { return x.fallback }
