package track

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
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
}

// DBPath is where the database of data directory dir lives.
func DBPath(dir string) string { return filepath.Join(dir, ".index", "track.db") }

// Meta names.
const (
	metaStale = "stale"     // non-empty: a write failed; rebuild
	metaBuilt = "built"     // RFC 3339 time of the last full build
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

// Stats says what a sync did.
type Stats struct {
	Rebuilt bool   // the index was emptied and built from the files
	Reason  string // why it was rebuilt
	Read    int    // files (re)read
	Forgot  int    // files gone since the last sync
	Skipped int    // connection directories unchanged since the last sync
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
	known := map[string]Source{}
	for _, name := range []string{"uploads.jsonl", "seen.jsonl"} {
		m, err := x.b.Sources(ctx, filepath.Join(dir, name))
		if err != nil {
			return err
		}
		for p, src := range m {
			known[p] = src
		}
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
	var dirs []string
	if onlyConnDir != "" {
		dirs = []string{onlyConnDir}
	} else {
		for _, r := range x.roots {
			ents, err := os.ReadDir(r)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return st, fmt.Errorf("track: read %s: %w", r, err)
			}
			for _, e := range ents {
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
					dirs = append(dirs, filepath.Join(r, e.Name()))
				}
			}
		}
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
		// connection directories that are gone altogether
		sigs, err := x.b.Metas(ctx, sigPrefix)
		if err != nil {
			return st, err
		}
		for name, v := range sigs {
			d := strings.TrimPrefix(name, sigPrefix)
			if onDisk[d] || v == "gone" {
				continue
			}
			gone, err := x.b.Sources(ctx, d+string(filepath.Separator))
			if err != nil {
				return st, err
			}
			for p := range gone {
				b.forget(p)
				st.Forgot++
			}
			if err := b.flush(); err != nil {
				return st, err
			}
			if err := x.b.SetMeta(ctx, name, "gone"); err != nil {
				return st, writeErr(err)
			}
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

// dirSignature summarises a connection directory's files cheaply: the
// modification times and sizes of the deliveries directory (it changes
// with every stored delivery and every rewritten sidecar: both are
// renames into it), the upload history, the seen journal and the sent
// copies. ok is false when a time is too recent to trust (a change in the
// same clock tick would not show).
func (x *Index) dirSignature(connDir string) (sig string, ok bool) {
	var parts []string
	ok = true
	for _, name := range []string{"deliveries", "uploads.jsonl", "seen.jsonl", "sent"} {
		fi, err := os.Stat(filepath.Join(connDir, name))
		if err != nil {
			parts = append(parts, name+":-")
			continue
		}
		if time.Since(fi.ModTime()) < 2*time.Second { // the file system's clock, not the fake one
			ok = false
		}
		parts = append(parts, fmt.Sprintf("%s:%d:%d", name, fi.Size(), fi.ModTime().UnixNano()))
	}
	return strings.Join(parts, ","), ok
}

func statSource(path, conn string) (Source, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Source{}, false
	}
	return Source{Path: path, Conn: conn, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, true
}

func same(a, b Source) bool { return a.Size == b.Size && a.MTime == b.MTime }

// syncConnDir brings one connection directory up to date.
func (x *Index) syncConnDir(ctx context.Context, b *batcher, dir string, rebuilding bool, st *Stats) error {
	sig, sigOK := x.dirSignature(dir)
	if !rebuilding {
		if prev, err := x.b.Meta(ctx, sigPrefix+dir); err == nil && prev == sig && sigOK {
			st.Skipped++
			return nil
		}
	}
	known := map[string]Source{}
	if !rebuilding {
		var err error
		if known, err = x.b.Sources(ctx, dir+string(filepath.Separator)); err != nil {
			return err
		}
	}
	store, err := spool.Open(filepath.Dir(dir))
	if err != nil {
		return err
	}
	conn := ""
	// deliveries: one source per sidecar
	ddir := filepath.Join(dir, "deliveries")
	ents, err := os.ReadDir(ddir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("track: read %s: %w", ddir, err)
	}
	var todo []pending
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		p := filepath.Join(ddir, name)
		b.visit(p)
		src, ok := statSource(p, "")
		if !ok {
			continue
		}
		if old, had := known[p]; had && same(old, src) {
			if conn == "" {
				conn = old.Conn
			}
			continue
		}
		todo = append(todo, pending{path: p, name: name, src: src})
	}
	// read and parse in parallel, index in directory order
	for len(todo) > 0 {
		chunk := todo[:min(len(todo), parallelChunk)]
		todo = todo[len(chunk):]
		out := make([]*SourceItems, len(chunk))
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					out[i] = readDelivery(ctx, ddir, chunk[i])
				}
			}()
		}
		for i := range chunk {
			next <- i
		}
		close(next)
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, si := range out {
			if si == nil {
				continue // gone meanwhile
			}
			if si.Source.Conn != "" {
				conn = si.Source.Conn
			}
			if err := b.set(*si); err != nil {
				return err
			}
			st.Read++
		}
	}
	// the upload history (with the sent copies) and the seen journal
	if err := x.syncHistory(ctx, b, store, dir, &conn, known, st); err != nil {
		return err
	}
	// sources of this directory that are gone
	for p := range known {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) && !b.visited[p] {
			b.forget(p)
			st.Forgot++
		}
	}
	if err := b.flush(); err != nil {
		return err
	}
	if !sigOK {
		sig = ""
	}
	return writeErr(x.b.SetMeta(ctx, sigPrefix+dir, sig))
}

// pending is a sidecar to read.
type pending struct {
	path, name string
	src        Source
}

// parallelChunk is how many deliveries are read in parallel before they
// are indexed.
const parallelChunk = 512

// readDelivery reads one sidecar and its payload; nil when the sidecar is
// gone. A damaged sidecar is indexed by its name with the reason, so find
// shows it.
func readDelivery(ctx context.Context, ddir string, pd pending) *SourceItems {
	raw, err := os.ReadFile(pd.path)
	if err != nil {
		return nil
	}
	src := pd.src
	var m spool.Meta
	if json.Unmarshal(raw, &m) != nil || m.DeliveryAttemptID == "" || spool.SafeName(m.DeliveryAttemptID)+".json" != pd.name {
		it := Item{Kind: KindDelivery, Ref: strings.TrimSuffix(pd.name, ".json"), At: time.Unix(0, src.MTime).UTC(), State: "damaged",
			Status: "the sidecar is damaged", Note: "the sidecar " + pd.path + " does not decode: move it away to fetch the delivery again"}
		it.Keys = []Key{{Kind: KeyID, Value: norm(it.Ref)}}
		return &SourceItems{Source: src, Items: []Item{it}}
	}
	src.Conn = m.ConnectionID
	return &SourceItems{Source: src, Items: deliveryItems(ctx, spool.Stored{Meta: m, Path: filepath.Join(ddir, m.File)})}
}

func (x *Index) syncHistory(ctx context.Context, b *batcher, store *spool.Store, dir string, conn *string, known map[string]Source, st *Stats) error {
	hp := filepath.Join(dir, "uploads.jsonl")
	sentDir := filepath.Join(dir, "sent")
	src, ok := statSource(hp, "")
	if ok {
		b.visit(hp)
		// the sent copies count as part of the history's source
		if fi, err := os.Stat(sentDir); err == nil {
			src.MTime ^= fi.ModTime().UnixNano()
		}
		if old, had := known[hp]; !had || !same(old, src) {
			raw, err := os.ReadFile(hp)
			if err != nil {
				return fmt.Errorf("track: read %s: %w", hp, err)
			}
			var hist []spool.UploadRecord
			for _, l := range strings.Split(string(raw), "\n") {
				var r spool.UploadRecord
				if strings.TrimSpace(l) != "" && json.Unmarshal([]byte(l), &r) == nil {
					hist = append(hist, r)
				}
			}
			c := *conn
			if len(hist) > 0 {
				c = hist[0].ConnectionID
				*conn = c
			}
			src.Conn = c
			items := uploadItems(ctx, c, hist, func(sha string) (string, error) { return store.SentPath(c, sha) })
			if err := b.set(SourceItems{Source: src, Items: items}); err != nil {
				return err
			}
			st.Read++
		}
	}
	sp := filepath.Join(dir, "seen.jsonl")
	if src, ok := statSource(sp, *conn); ok {
		b.visit(sp)
		if old, had := known[sp]; !had || !same(old, src) {
			recs, err := spool.ReadSeen(sp)
			if err != nil {
				return err
			}
			if src.Conn == "" && len(recs) > 0 {
				src.Conn = recs[0].ConnectionID
			}
			if err := b.set(SourceItems{Source: src, Items: seenItems(src.Conn, recs)}); err != nil {
				return err
			}
			st.Read++
		}
	}
	return nil
}

// capturesPath lists the capture files the inspector read.
func (x *Index) capturesPath() string { return filepath.Join(filepath.Dir(x.path), "captures.jsonl") }

type captureLine struct {
	Path string    `json:"path"`
	At   time.Time `json:"at"`
}

// NoteCaptures records capture files or directories the inspector read
// and indexes their events. The list (not the database) remembers them,
// so a rebuild reads them again.
func (x *Index) NoteCaptures(ctx context.Context, paths []string) error {
	known := map[string]bool{}
	for _, p := range x.captures() {
		known[p] = true
	}
	var add []byte
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil || known[abs] {
			continue
		}
		known[abs] = true
		line, _ := json.Marshal(captureLine{Path: abs, At: x.opts.Now().UTC()})
		add = append(add, append(line, '\n')...)
	}
	if len(add) > 0 {
		f, err := os.OpenFile(x.capturesPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("track: note captures: %w", err)
		}
		_, err = f.Write(add)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("track: note captures: %w", err)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	known2, err := x.b.Sources(ctx, string(filepath.Separator))
	if err != nil {
		return err
	}
	b := &batcher{ctx: ctx, x: x}
	var st Stats
	if err := x.syncCaptures(ctx, b, known2, &st); err != nil {
		return err
	}
	return b.flush()
}

func (x *Index) captures() []string {
	raw, err := os.ReadFile(x.capturesPath())
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		var c captureLine
		if json.Unmarshal([]byte(l), &c) == nil && c.Path != "" {
			out = append(out, c.Path)
		}
	}
	sort.Strings(out)
	return out
}

// syncCaptures (re)reads the noted captures that changed. A directory's
// source is the directory (its modification time changes with its files).
func (x *Index) syncCaptures(ctx context.Context, b *batcher, known map[string]Source, st *Stats) error {
	for _, p := range x.captures() {
		fi, err := os.Stat(p)
		if err != nil {
			continue // gone: forgotten below (not visited)
		}
		src := Source{Path: p, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
		b.visit(p)
		if old, had := known[p]; had && same(old, src) {
			continue
		}
		items, err := eventItems(p)
		if err != nil {
			items = []Item{{Kind: KindEvent, Ref: filepath.Base(p), At: fi.ModTime().UTC(), State: "unreadable",
				Status: "the capture cannot be read", Note: err.Error()}}
		}
		if err := b.set(SourceItems{Source: src, Items: items}); err != nil {
			return err
		}
		st.Read++
	}
	for p := range known {
		if !b.visited[p] && !x.underRoots(p) {
			b.forget(p)
			st.Forgot++
		}
	}
	return nil
}
