package track

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Options configure an Index.
type Options struct {
	// Dir is the data directory; the database is Dir/.index/track.db and
	// the list of capture files the inspector read Dir/.index/captures.jsonl.
	Dir string
	// Roots are the spool roots to index (every profile's store
	// directory); Dir itself is always one.
	Roots []string
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
	// Say receives the one line a person should read: the index was
	// rebuilt and why. nil discards it.
	Say func(msg string)
	// Backend replaces the SQLite database (tests inject faults; the
	// index in memory of OpenQuery); Open then neither creates nor
	// repairs a file.
	Backend Backend
	// Wait bounds how long a statement waits for another process's write
	// transaction; 0: 30 s.
	Wait time.Duration
}

// Index is the tracking index of one machine. It is safe for concurrent
// use; several processes may use the same database at once.
type Index struct {
	b     Backend // raw through the path codec
	raw   Backend
	opts  Options
	roots []string
	path  string

	mu     sync.Mutex // serialises syncs of this process
	reason string     // why the next sync must be a full rebuild ("" when not)
	said   bool

	fallback string // why the index is in memory (OpenQuery), "" when not

	team     bool                              // a team store's index (OpenTeam): never synced
	readFile func(path string) ([]byte, error) // reads an item's file (nil: os.ReadFile)
}

// DBPath is where the database of data directory dir lives.
func DBPath(dir string) string { return filepath.Join(dir, ".index", "track.db") }

// Meta names.
const (
	metaStale = "stale"     // non-empty: a write failed; rebuild
	metaBuilt = "built"     // RFC 3339 time of the last full build
	metaEpoch = "epoch"     // names this index's life: the verdict cache's files of another are not used (Reset drops it)
	sigPrefix = "dirsig:"   // + connection dir: the signature of its files at the last sync
	stalePath = "stale.txt" // marker file next to the database, for when the database itself cannot be written
)

// Open opens the index of opts.Dir, creating it when missing. A damaged
// or foreign database file is moved aside (track.db.broken-<time>) and a
// new one created; the next Sync rebuilds it and Say tells why, once.
func Open(ctx context.Context, opts Options) (*Index, error) {
	if opts.Dir == "" {
		return nil, errors.New("track: no data directory")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	x := &Index{opts: opts, path: DBPath(opts.Dir)}
	seen := map[string]bool{}
	for _, r := range append([]string{opts.Dir}, opts.Roots...) {
		if abs, err := filepath.Abs(r); err == nil && !seen[abs] {
			seen[abs] = true
			x.roots = append(x.roots, abs)
		}
	}
	if opts.Backend != nil {
		return x, x.attach(ctx, opts.Backend)
	}
	if err := os.MkdirAll(filepath.Dir(x.path), 0o700); err != nil {
		return nil, fmt.Errorf("track: create %s: %w", filepath.Dir(x.path), err)
	}
	b, err := x.openFile(ctx)
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrForeign) {
		aside := fmt.Sprintf("%s.broken-%s", x.path, opts.Now().UTC().Format("20060102T150405"))
		for _, ext := range []string{"", "-wal", "-shm"} {
			_ = os.Rename(x.path+ext, aside+ext)
		}
		x.reason = fmt.Sprintf("the index database was unusable (%v) and was moved to %s", err, aside)
		b, err = x.openFile(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := x.attach(ctx, b); err != nil {
		b.Close()
		return nil, err
	}
	return x, nil
}

func (x *Index) openFile(ctx context.Context) (*SQLite, error) {
	if x.opts.Wait > 0 {
		return OpenSQLiteWait(ctx, x.path, x.opts.Wait)
	}
	return OpenSQLite(ctx, x.path)
}

// attach uses database b (through the path codec) and reads its state.
func (x *Index) attach(ctx context.Context, b Backend) error {
	c, err := newPathCodec(ctx, b, x.roots)
	if err != nil {
		return err
	}
	x.raw, x.b = b, c
	return x.checkStale(ctx)
}

// checkStale sets the rebuild reason when a write failed earlier.
func (x *Index) checkStale(ctx context.Context) error {
	if x.reason != "" {
		return nil
	}
	v, err := x.b.Meta(ctx, metaStale)
	if err != nil {
		return err
	}
	if _, serr := os.Stat(filepath.Join(filepath.Dir(x.path), stalePath)); serr == nil && v == "" {
		v = "an earlier write failed"
	}
	if v != "" {
		x.reason = "the index was marked stale: " + v
		return nil
	}
	// a database whose first build never finished (or a new one)
	if built, err := x.b.Meta(ctx, metaBuilt); err != nil {
		return err
	} else if built == "" {
		x.reason = "there was no index yet"
	}
	return nil
}

// NeedsRebuild says why the next sync will rebuild the whole index, ""
// when it will not.
func (x *Index) NeedsRebuild() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.reason
}

// Close closes the database.
func (x *Index) Close() error { return x.b.Close() }

// Backend is the database the index uses.
func (x *Index) Backend() Backend { return x.b }

// Roots are the spool roots the index reads.
func (x *Index) Roots() []string { return append([]string(nil), x.roots...) }

// markStale records that the index missed a change (a write failed): the
// next Open rebuilds. The marker file is tried too, for when the database
// itself cannot be written (a full disk).
func (x *Index) markStale(ctx context.Context, cause error) {
	_ = x.b.SetMeta(ctx, metaStale, cause.Error())
	_ = os.WriteFile(filepath.Join(filepath.Dir(x.path), stalePath), []byte(cause.Error()+"\n"), 0o600)
	x.reason = "the index was marked stale: " + cause.Error()
}

func (x *Index) clearStale(ctx context.Context) error {
	_ = os.Remove(filepath.Join(filepath.Dir(x.path), stalePath))
	return x.b.SetMeta(ctx, metaStale, "")
}

// ErrTeamIndex: a team store's index is fed by pushes, not synced from
// this machine's files.
var ErrTeamIndex = errors.New("track: a team store's index is fed by pushes (b2bx store push), not synced from files")

// Stats says what a sync did.
type Stats struct {
	Rebuilt bool   // the index was emptied and built from the files
	Reason  string // why it was rebuilt
	Read    int    // files (re)read
	Forgot  int    // files gone since the last sync
	Skipped int    // connection directories unchanged since the last sync
	Parts   int    // parts of journals (upload attempts, deliveries seen) indexed anew or forgotten
}

// ErrStale wraps a failed index write: the index is marked stale and will
// be rebuilt; the files are untouched.
var ErrStale = errors.New("track: the index could not be updated and is marked stale; it is rebuilt from the stored files next time")

// Sync brings the index up to date with the files of every root and the
// captures read so far: a full rebuild when needed (said once through
// Say), else only the files whose size or modification time changed.
func (x *Index) Sync(ctx context.Context) (Stats, error) {
	return x.sync(ctx, "")
}

// Rebuild empties the index and builds it from the files.
func (x *Index) Rebuild(ctx context.Context, why string) (Stats, error) {
	x.mu.Lock()
	x.reason = why
	x.mu.Unlock()
	return x.sync(ctx, "")
}

// SyncConn updates the index for one connection of one spool root (after
// a store, an upload, an answer). A pending rebuild is done instead.
func (x *Index) SyncConn(ctx context.Context, root, connectionID string) (Stats, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Stats{}, err
	}
	return x.sync(ctx, filepath.Join(abs, spool.SafeName(connectionID)))
}

// IndexStored indexes deliveries just stored (or acknowledged) under
// spool root root, reading only their sidecars and payloads: the update
// after each download, a few milliseconds each however large the store.
// A pending rebuild is left to the next Sync.
func (x *Index) IndexStored(ctx context.Context, root string, stored ...spool.Stored) (err error) {
	if x.team {
		return ErrTeamIndex
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.reason != "" {
		return nil
	}
	defer func() {
		if err != nil && !errors.Is(err, context.Canceled) {
			x.markStale(context.WithoutCancel(ctx), err)
			err = fmt.Errorf("%w: %w", ErrStale, err)
		}
	}()
	var b Batch
	for _, st := range stored {
		p := filepath.Join(filepath.Dir(st.Path), spool.SafeName(st.Meta.DeliveryAttemptID)+".json")
		src, ok := statSource(p, st.Meta.ConnectionID)
		if !ok {
			continue
		}
		// the sidecar as stored now (an acknowledge rewrote it)
		raw, rerr := os.ReadFile(p)
		var m spool.Meta
		if rerr != nil || json.Unmarshal(raw, &m) != nil || m.DeliveryAttemptID != st.Meta.DeliveryAttemptID {
			continue // a sync sees what is there
		}
		b.Set = append(b.Set, SourceItems{Source: src, Items: deliveryItems(ctx, spool.Stored{Meta: m, Path: st.Path})})
	}
	if len(b.Set) == 0 {
		return nil
	}
	return x.b.Apply(ctx, b)
}

// IndexHistory re-reads one connection's upload history (with the files
// sent) and seen journal, not its deliveries: the update after an upload.
// A pending rebuild is left to the next Sync.
func (x *Index) IndexHistory(ctx context.Context, root, connectionID string) (err error) {
	if x.team {
		return ErrTeamIndex
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.reason != "" {
		return nil
	}
	defer func() {
		if err != nil && !errors.Is(err, context.Canceled) && (isWriteErr(err) || errors.Is(err, ErrFull)) {
			x.markStale(context.WithoutCancel(ctx), err)
			err = fmt.Errorf("%w: %w", ErrStale, err)
		}
	}()
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	dir := filepath.Join(abs, spool.SafeName(connectionID))
	store, err := spool.Open(abs)
	if err != nil {
		return err
	}
	known, err := x.journalSources(ctx, dir)
	if err != nil {
		return err
	}
	b := &batcher{ctx: ctx, x: x}
	conn := connectionID
	var st Stats
	if err := x.syncHistory(ctx, b, store, dir, &conn, known, &st); err != nil {
		return err
	}
	return b.flush()
}

func (x *Index) sync(ctx context.Context, onlyConnDir string) (st Stats, err error) {
	if x.team {
		return st, ErrTeamIndex
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	defer func() {
		if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return
		}
		switch {
		case errors.Is(err, ErrCorrupt):
			x.recoverCorrupt(ctx, err)
			err = fmt.Errorf("%w: %w", ErrStale, err)
		case isWriteErr(err) || errors.Is(err, ErrFull):
			x.markStale(context.WithoutCancel(ctx), err)
			err = fmt.Errorf("%w: %w", ErrStale, err)
		}
	}()
	if x.reason != "" {
		st.Rebuilt, st.Reason = true, x.reason
		if err := x.b.Reset(ctx); err != nil {
			return st, writeErr(err)
		}
		onlyConnDir = ""
	}
	dirs, err := x.connDirs(onlyConnDir)
	if err != nil {
		return st, err
	}
	b := &batcher{ctx: ctx, x: x, fresh: st.Rebuilt}
	onDisk := map[string]bool{}
	for _, d := range dirs {
		onDisk[d] = true
		if err := x.syncConnDir(ctx, b, d, st.Rebuilt, &st); err != nil {
			return st, err
		}
	}
	if onlyConnDir == "" {
		known, err := x.b.Sources(ctx, string(filepath.Separator))
		if err != nil {
			return st, err
		}
		if err := x.syncCaptures(ctx, b, known, &st); err != nil {
			return st, err
		}
		if err := x.forgetGoneDirs(ctx, b, onDisk, &st); err != nil {
			return st, err
		}
	}
	if err := b.flush(); err != nil {
		return st, err
	}
	if st.Rebuilt {
		if err := x.clearStale(ctx); err != nil {
			return st, writeErr(err)
		}
		_ = x.b.SetMeta(ctx, metaBuilt, x.opts.Now().UTC().Format(time.RFC3339))
		if !x.said && x.opts.Say != nil {
			x.opts.Say(fmt.Sprintf("the tracking index was rebuilt from the stored files (%s): %d files read", x.reason, st.Read))
		}
		x.said, x.reason = true, ""
	}
	return st, nil
}

// connDirs are the connection directories a sync walks: only, or every
// one of every root.
func (x *Index) connDirs(only string) ([]string, error) {
	if only != "" {
		return []string{only}, nil
	}
	var dirs []string
	for _, r := range x.roots {
		ents, err := os.ReadDir(r)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("track: read %s: %w", r, err)
		}
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				dirs = append(dirs, filepath.Join(r, e.Name()))
			}
		}
	}
	return dirs, nil
}

// forgetGoneDirs forgets the sources of connection directories that are
// gone altogether (not onDisk).
func (x *Index) forgetGoneDirs(ctx context.Context, b *batcher, onDisk map[string]bool, st *Stats) error {
	sigs, err := x.b.Metas(ctx, sigPrefix)
	if err != nil {
		return err
	}
	for name, v := range sigs {
		d := strings.TrimPrefix(name, sigPrefix)
		if onDisk[d] || v == "gone" {
			continue
		}
		gone, err := x.b.Sources(ctx, d+string(filepath.Separator))
		if err != nil {
			return err
		}
		for p := range gone {
			b.forget(p)
			st.Forgot++
		}
		if err := b.flush(); err != nil {
			return err
		}
		if err := x.b.SetMeta(ctx, name, "gone"); err != nil {
			return writeErr(err)
		}
	}
	return nil
}

// recoverCorrupt moves a database found damaged mid-use aside and opens a
// new one; the next sync rebuilds it.
func (x *Index) recoverCorrupt(ctx context.Context, cause error) {
	if x.opts.Backend != nil {
		x.reason = "the index database is damaged: " + cause.Error()
		return
	}
	_ = x.b.Close()
	aside := fmt.Sprintf("%s.broken-%s", x.path, x.opts.Now().UTC().Format("20060102T150405"))
	for _, ext := range []string{"", "-wal", "-shm"} {
		_ = os.Rename(x.path+ext, aside+ext)
	}
	if b, err := x.openFile(context.WithoutCancel(ctx)); err == nil {
		if c, err := newPathCodec(context.WithoutCancel(ctx), b, x.roots); err == nil {
			x.raw, x.b = b, c
		}
	}
	x.reason, x.said = fmt.Sprintf("the index database was damaged (%v) and was moved to %s", cause, aside), false
}

func (x *Index) underRoots(p string) bool {
	for _, r := range x.roots {
		if strings.HasPrefix(p, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// writeErr marks an error of a write to the index (as opposed to reading
// the files).
type indexWriteErr struct{ err error }

func (e *indexWriteErr) Error() string { return e.err.Error() }
func (e *indexWriteErr) Unwrap() error { return e.err }

func writeErr(err error) error {
	if err == nil {
		return nil
	}
	return &indexWriteErr{err}
}

func isWriteErr(err error) bool {
	var w *indexWriteErr
	return errors.As(err, &w)
}
