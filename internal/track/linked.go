package track

import (
	"cmp"
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// Linked is a connection's link input read from the index: the upload
// history (the store's own file, small) and the answers of the stored
// deliveries in the conversations of its uploads, as the index keeps
// them (no payload is parsed, no other delivery is read), linked by
// orders.NewLinked. Sync the connection first (SyncConn).
func (x *Index) Linked(ctx context.Context, store *spool.Store, conn string) (*orders.Linked, error) {
	return x.LinkedFor(ctx, store, conn, nil)
}

// LinkedFor is Linked for the uploads sel selects (nil: every upload):
// the resend guard asks about the uploads of one file's bytes, the
// pre-flight's history about the newest accepted ones, so `b2bx upload`
// reads their conversations however many a connection has. With a
// selection the link input holds the uploads in the selected uploads'
// conversations (an answer links within its conversation, so no link of
// theirs changes), read from the index's upload items: the history file
// is not read, unless an item was indexed before items carried their
// record (then the store's history, once). Without, every upload of the
// history.
func (x *Index) LinkedFor(ctx context.Context, store *spool.Store, conn string, sel *orders.Selection) (*orders.Linked, error) {
	if sel == nil {
		hist, err := store.Uploads(conn)
		if err != nil {
			return nil, err
		}
		return x.LinkedWith(ctx, hist, conn)
	}
	l, _, _, err := x.selected(ctx, store, conn, *sel)
	return l, err
}

// selected is LinkedFor with a selection, and the upload items sel
// selects; fromItems is false when the uploads were read from the store's
// history (items indexed before they carried their record).
func (x *Index) selected(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (l *orders.Linked, picked []Item, fromItems bool, err error) {
	ups, err := x.uploadsFor(ctx, conn, sel)
	if err != nil {
		return nil, nil, false, err
	}
	var convs []string
	seen := map[string]bool{}
	for i := range ups {
		if u := &ups[i]; u.Conn == conn {
			if d, ok := u.upload(); ok && sel.Has(d.Key, d.SHA256) {
				convs = addConvs(convs, seen, u)
				picked = append(picked, *u)
			}
		}
	}
	ds, upItems, err := x.convItems(ctx, conn, convs)
	if err != nil {
		return nil, nil, false, err
	}
	l, fromItems, err = linkedOfItems(store, conn, seen, ds, upItems)
	return l, picked, fromItems, err
}

// linkedOfItems links the deliveries ds to the uploads of the upload
// items; an index written before items carried their record has the
// uploads of the conversations convs read from the store's history
// (fromItems false).
func linkedOfItems(store *spool.Store, conn string, convs map[string]bool, ds []orders.Delivery, upItems []Item) (l *orders.Linked, fromItems bool, err error) {
	hist, ok := recordsOf(upItems)
	if !ok {
		all, err := store.Uploads(conn)
		if err != nil {
			return nil, false, err
		}
		hist = inConvs(all, convs)
	}
	return orders.NewLinked(hist, ds), ok, nil
}

// LinkedWith is Linked over the upload history hist (a team's: this
// machine's lines merged with the ones its colleagues pushed) instead of
// the store's own file: the answers of every conversation of conn's
// uploads in the index, linked to hist.
func (x *Index) LinkedWith(ctx context.Context, hist []spool.UploadRecord, conn string) (*orders.Linked, error) {
	ups, err := x.b.ByKind(ctx, KindUpload, time.Time{})
	if err != nil {
		return nil, err
	}
	var convs []string
	seen := map[string]bool{}
	for _, u := range ups {
		if u.Conn == conn {
			convs = addConvs(convs, seen, &u)
		}
	}
	ds, _, err := x.convItems(ctx, conn, convs)
	if err != nil {
		return nil, err
	}
	return orders.NewLinked(hist, ds), nil
}

func addConvs(convs []string, seen map[string]bool, it *Item) []string {
	for _, k := range it.Keys {
		if k.Kind == KeyConv && !seen[k.Value] {
			seen[k.Value] = true
			convs = append(convs, k.Value)
		}
	}
	return convs
}

// convItems reads the conversations' items of connection conn: the stored
// deliveries with their answers as the index keeps them, and the upload
// items.
func (x *Index) convItems(ctx context.Context, conn string, convs []string) (ds []orders.Delivery, ups []Item, err error) {
	if len(convs) == 0 {
		return nil, nil, nil
	}
	items, err := x.b.ByConv(ctx, convs)
	if err != nil {
		return nil, nil, err
	}
	ds, ups = deliveriesAndUploads(conn, items)
	return ds, ups, nil
}

// deliveriesAndUploads are the stored deliveries of conn among items
// (one per delivery: the first item of each), with their answers as the
// index keeps them, and the upload items (one per item id).
func deliveriesAndUploads(conn string, items []Item) (ds []orders.Delivery, ups []Item) {
	have := map[string]bool{}
	seenUp := map[int64]bool{}
	for i := range items {
		it := &items[i]
		if it.Conn != conn {
			continue
		}
		if it.Kind == KindUpload && !seenUp[it.ID] {
			seenUp[it.ID] = true
			ups = append(ups, *it)
		}
		if it.Kind != KindDelivery || have[it.Ref] {
			continue
		}
		have[it.Ref] = true
		st := spool.Stored{Path: strings.TrimSuffix(it.Path, ".json") + ".edi",
			Meta: spool.Meta{ConnectionID: conn, DeliveryAttemptID: it.Ref, MessageType: it.Type, CreatedAt: it.At}}
		as, vs := it.answersAndVersions()
		ds = append(ds, orders.DeliveryWith(st, as, vs...))
	}
	return ds, ups
}

// recordsOf is the upload records the items carry (one folded attempt
// each), in the order they were reserved (the history's append order);
// false when an item carries none.
func recordsOf(items []Item) ([]spool.UploadRecord, bool) {
	type at struct {
		rec spool.UploadRecord
		id  int64
	}
	var out []at
	for i := range items {
		d, ok := items[i].upload()
		if !ok || d.Rec == nil {
			return nil, false
		}
		rec := *d.Rec
		rec.Started = d.Started
		out = append(out, at{rec, items[i].ID})
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := cmp.Or(out[i].rec.Started, out[i].rec.Time), cmp.Or(out[j].rec.Started, out[j].rec.Time)
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].id < out[j].id
	})
	recs := make([]spool.UploadRecord, len(out))
	for i := range out {
		recs[i] = out[i].rec
	}
	return recs, true
}

// inConvs keeps the records of hist in one of the conversations convs.
func inConvs(hist []spool.UploadRecord, convs map[string]bool) []spool.UploadRecord {
	var out []spool.UploadRecord
	for _, r := range hist {
		for _, c := range recordConvs(r) {
			if convs[norm(c)] {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// matchKeysMax is how many keys and SHA-256s of a selection are looked up
// one by one; more are read as every upload since the selection's Since.
const matchKeysMax = 32

// uploadsFor reads the upload items a selection may name: each key and
// SHA-256 looked up, or every upload since sel.Since. It reads what the
// selection holds, not every upload of every connection.
func (x *Index) uploadsFor(ctx context.Context, conn string, sel orders.Selection) ([]Item, error) {
	if sel.Len() > matchKeysMax {
		if vb, ok := x.b.(valuesLookup); ok { // the values through the key index, in a few queries
			if its, ok, err := uploadsByValues(ctx, vb, sel); ok || err != nil {
				return its, err
			}
		}
		return x.b.ByKind(ctx, KindUpload, sel.Since)
	}
	var out []Item
	look := func(kind KeyKind, v string) error {
		if v == "" {
			return nil
		}
		its, err := x.b.Match(ctx, Match{Value: norm(v), Kinds: []KeyKind{kind}, Conn: conn})
		out = append(out, its...)
		return err
	}
	for _, k := range sel.Keys {
		if err := look(KeyKey, k); err != nil {
			return nil, err
		}
	}
	for _, h := range sel.SHAs {
		if err := look(KeyID, h); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// valuesBackend is a Backend that reads the items carrying any of many
// values of one key kind in a few queries (SQLite's IN lists).
type valuesBackend interface {
	ByValues(ctx context.Context, kind KeyKind, values []string) ([]Item, error)
}

// valuesLookup is the path codec's view of a valuesBackend: ok false
// when the backend under it is not one.
type valuesLookup interface {
	ByValues(ctx context.Context, kind KeyKind, values []string) ([]Item, bool, error)
}

// uploadsByValues reads the upload items of a large selection by its keys
// and SHA-256s (the pre-flight's newest 200 accepted payloads): what the
// selection names, however many uploads the index holds. ok is false when
// the backend cannot look values up in bulk.
func uploadsByValues(ctx context.Context, vb valuesLookup, sel orders.Selection) ([]Item, bool, error) {
	var out []Item
	for _, q := range []struct {
		kind KeyKind
		vals []string
	}{{KeyKey, sel.Keys}, {KeyID, sel.SHAs}} {
		vals := make([]string, 0, len(q.vals))
		for _, v := range q.vals {
			if v != "" {
				vals = append(vals, norm(v))
			}
		}
		if len(vals) == 0 {
			continue
		}
		its, ok, err := vb.ByValues(ctx, q.kind, vals)
		if !ok || err != nil {
			return nil, ok, err
		}
		for _, it := range its {
			if it.Kind == KindUpload {
				out = append(out, it)
			}
		}
	}
	return out, true, nil
}

// LoadLinked is the link input of a connection for both faces (H, `b2bx
// uploads`, the upload guard, the fix flow, bundles): from the machine's
// tracking index, brought up to date for that connection first (cheap
// when nothing changed), and from the store itself (every stored answer
// parsed: orders.LoadLinked) only when the index cannot be used (none
// yet, a rebuild pending, a read-only or damaged one).
func LoadLinked(ctx context.Context, env session.Env, store *spool.Store, conn string) (*orders.Linked, error) {
	return LoadLinkedFor(ctx, env, store, conn, nil)
}

// LoadLinkedFor is LoadLinked with LinkedFor's selection: the answers of
// the conversations of the uploads only selects (by key and SHA-256).
func LoadLinkedFor(ctx context.Context, env session.Env, store *spool.Store, conn string, sel *orders.Selection) (*orders.Linked, error) {
	inflight.Add(1)
	defer inflight.Done()
	if l, err := indexLinked(ctx, env, store, conn, sel); err == nil || ctx.Err() != nil { // stopped: not read from the store either
		return l, err
	}
	return orders.LoadLinked(ctx, store, conn, nil)
}

// Loader is LoadLinked over env as an orders.Loader, for the app's tabs
// and screens.
func Loader(env session.Env) orders.Loader {
	return func(ctx context.Context, store *spool.Store, conn string) (*orders.Linked, error) {
		return LoadLinked(ctx, env, store, conn)
	}
}

// SelectLoader is LoadLinkedFor over env as an orders.SelectLoader: the
// upload guard and the pre-flight's history read the conversations of the
// uploads they ask about, not the whole connection.
func SelectLoader(env session.Env) orders.SelectLoader {
	return func(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (*orders.Linked, error) {
		return LoadLinkedFor(ctx, env, store, conn, &sel)
	}
}

func indexLinked(ctx context.Context, env session.Env, store *spool.Store, conn string, sel *orders.Selection) (*orders.Linked, error) {
	return withConnIndex(ctx, env, store, conn, func(x *Index) (*orders.Linked, error) {
		return x.LinkedFor(ctx, store, conn, sel)
	})
}

// withConnIndex runs read over the machine's index, open and synced for
// connection conn; an error when it cannot be used (none yet, a rebuild
// pending, read-only or damaged).
func withConnIndex(ctx context.Context, env session.Env, store *spool.Store, conn string, read func(x *Index) (*orders.Linked, error)) (*orders.Linked, error) {
	x, err := openConnIndex(ctx, env, store, conn)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return read(x)
}

// openConnIndex is the machine's index, open and synced for conn.
func openConnIndex(ctx context.Context, env session.Env, store *spool.Store, conn string) (*Index, error) {
	m, err := LoadMachine(env)
	if err != nil {
		return nil, err
	}
	x, err := m.Open(ctx, nil)
	if err != nil {
		return nil, err
	}
	if why := x.NeedsRebuild(); why != "" {
		x.Close()
		return nil, errNeedsRebuild
	}
	if _, err := x.SyncConn(ctx, store.Root(), conn); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// VerdictLoader is the pre-flight history's verdicts over env's index as
// an orders.VerdictLoader (Index.Verdicts: kept in the index between
// uploads), from the store's files when the index cannot be used.
func VerdictLoader(env session.Env) orders.VerdictLoader {
	return func(ctx context.Context, store *spool.Store, conn string, sel orders.Selection, features orders.FeaturesFunc) (map[string]orders.Verdict, error) {
		l := NewLinker(env, store, conn)
		defer l.Close()
		return l.Verdicts()(ctx, store, conn, sel, features)
	}
}

// Linker answers the LinkedFor questions of one command about one
// connection (the upload's pre-flight history, then its resend guard)
// over one open index, synced once: nothing the command does between
// them writes what the index reads. Each answer is LoadLinkedFor's (the
// store itself when the index cannot be used). Close it when the
// questions are asked; it is not for concurrent use.
type Linker struct {
	env    session.Env
	store  *spool.Store
	conn   string
	x      *Index
	err    error // why the index cannot be used (then every answer reads the store)
	opened bool
}

// NewLinker is a Linker over env's index for conn of store.
func NewLinker(env session.Env, store *spool.Store, conn string) *Linker {
	return &Linker{env: env, store: store, conn: conn}
}

// LinkedFor is LoadLinkedFor(ctx, env, store, conn, sel).
func (l *Linker) LinkedFor(ctx context.Context, sel *orders.Selection) (*orders.Linked, error) {
	if !l.opened {
		l.opened = true
		l.x, l.err = openConnIndex(ctx, l.env, l.store, l.conn)
	}
	if l.err == nil {
		lk, err := l.x.LinkedFor(ctx, l.store, l.conn, sel)
		if err == nil || ctx.Err() != nil {
			return lk, err
		}
	} else if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return orders.LoadLinked(ctx, l.store, l.conn, nil)
}

// SelectLoader is l as an orders.SelectLoader; asked about another store
// or connection it is SelectLoader(env)'s.
func (l *Linker) SelectLoader() orders.SelectLoader {
	return func(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (*orders.Linked, error) {
		if store != l.store || conn != l.conn {
			return LoadLinkedFor(ctx, l.env, store, conn, &sel)
		}
		return l.LinkedFor(ctx, &sel)
	}
}

// Verdicts is the orders.VerdictLoader of l's connection: the pre-flight
// history's verdicts from the index's verdict cache (Index.Verdicts),
// over the store's files when the index cannot be used; asked about
// another store or connection it reads that one's link input.
func (l *Linker) Verdicts() orders.VerdictLoader {
	return func(ctx context.Context, store *spool.Store, conn string, sel orders.Selection, features orders.FeaturesFunc) (map[string]orders.Verdict, error) {
		if store != l.store || conn != l.conn {
			return orders.VerdictsVia(SelectLoader(l.env))(ctx, store, conn, sel, features)
		}
		if !l.opened {
			l.opened = true
			l.x, l.err = openConnIndex(ctx, l.env, l.store, l.conn)
		}
		if l.err == nil {
			vs, err := l.x.Verdicts(ctx, l.store, l.conn, sel, features)
			if err == nil || ctx.Err() != nil {
				return vs, err
			}
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return orders.VerdictsVia(nil)(ctx, store, conn, sel, features)
	}
}

// Close closes the index (idempotent).
func (l *Linker) Close() {
	if l.x != nil {
		l.x.Close()
		l.x = nil
	}
	l.err, l.opened = nil, false
}

var errNeedsRebuild = errors.New("the tracking index needs a rebuild")

// inflight counts the index work running in the background of the app
// (LoadLinked, IndexAfter), so a test can wait for it before its
// directories are removed. Not a sync.WaitGroup: a tab's command may
// start new work while a test already waits (the program has quit, its
// commands have not), and a WaitGroup forbids an Add from zero during a
// Wait.
var inflight idleCount

// idleCount counts running work; wait returns once none runs.
type idleCount struct {
	mu   sync.Mutex
	n    int
	idle sync.Cond
}

func (c *idleCount) Add(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n += delta; c.n < 0 {
		panic("track: inflight work count below zero")
	}
	if c.n == 0 && c.idle.L != nil {
		c.idle.Broadcast()
	}
}

func (c *idleCount) Done() { c.Add(-1) }

func (c *idleCount) Wait() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idle.L == nil {
		c.idle.L = &c.mu
	}
	for c.n > 0 {
		c.idle.Wait()
	}
}

// WaitIdle waits until no LoadLinked or IndexAfter runs (tests register it
// as a cleanup after creating the data directory).
func WaitIdle() { inflight.Wait() }
