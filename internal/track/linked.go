package track

import (
	"context"
	"errors"
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

// LinkedFor is Linked with the answers of the conversations of only the
// uploads only selects (nil: every upload): the resend guard asks about
// the uploads of one file's bytes, so `b2bx upload` reads one
// conversation however many a connection has. With a selection only
// the uploads in the selected uploads' conversations are in it (an
// answer links within its conversation, so no link of theirs changes);
// without, every upload of the history.
func (x *Index) LinkedFor(ctx context.Context, store *spool.Store, conn string, only func(key, sha string) bool) (*orders.Linked, error) {
	hist, err := store.Uploads(conn)
	if err != nil {
		return nil, err
	}
	ups, err := x.uploadsFor(ctx, hist, conn, only)
	if err != nil {
		return nil, err
	}
	var convs []string
	seen := map[string]bool{}
	for _, u := range ups {
		if u.Conn != conn {
			continue
		}
		if only != nil {
			if d, ok := u.upload(); !ok || !only(d.Key, d.SHA256) {
				continue
			}
		}
		for _, k := range u.Keys {
			if k.Kind == KeyConv && !seen[k.Value] {
				seen[k.Value] = true
				convs = append(convs, k.Value)
			}
		}
	}
	if only != nil {
		hist = inConvs(hist, seen)
	}
	var ds []orders.Delivery
	if len(convs) > 0 {
		items, err := x.b.ByConv(ctx, convs)
		if err != nil {
			return nil, err
		}
		have := map[string]bool{}
		for i := range items {
			it := &items[i]
			if it.Kind != KindDelivery || it.Conn != conn || have[it.Ref] {
				continue
			}
			have[it.Ref] = true
			st := spool.Stored{Path: strings.TrimSuffix(it.Path, ".json") + ".edi",
				Meta: spool.Meta{ConnectionID: conn, DeliveryAttemptID: it.Ref, MessageType: it.Type, CreatedAt: it.At}}
			ds = append(ds, orders.DeliveryWith(st, it.Answers()))
		}
	}
	return orders.NewLinked(hist, ds), nil
}

// inConvs keeps the records of hist in one of the conversations convs:
// an answer links only within its conversation, so the uploads of the
// others change no link of the selection.
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

// matchKeysMax is how many selected keys LinkedFor looks up one by one;
// more are read as every upload since the oldest of them.
const matchKeysMax = 256

// uploadsFor reads the upload items LinkedFor needs: every one (only nil),
// those with the keys of the few selected records of hist, or those since
// the oldest selected record. It reads what the selection holds, not every
// upload of every connection.
func (x *Index) uploadsFor(ctx context.Context, hist []spool.UploadRecord, conn string, only func(key, sha string) bool) ([]Item, error) {
	if only == nil {
		return x.b.ByKind(ctx, KindUpload, time.Time{})
	}
	keys := map[string]bool{}
	var oldest time.Time
	for _, r := range hist {
		if r.Key == "" || !only(r.Key, r.SHA256) {
			continue
		}
		keys[r.Key] = true
		if t := orders.UploadOf(r).Time(); oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if len(keys) > matchKeysMax {
		// an item is dated on the server's clock (UploadOf), the record on
		// this machine's: a day's margin covers any clock the link rule trusts
		return x.b.ByKind(ctx, KindUpload, oldest.Add(-24*time.Hour))
	}
	var out []Item
	for k := range keys {
		its, err := x.b.Match(ctx, Match{Value: norm(k), Kinds: []KeyKind{KeyKey}, Conn: conn})
		if err != nil {
			return nil, err
		}
		out = append(out, its...)
	}
	return out, nil
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
func LoadLinkedFor(ctx context.Context, env session.Env, store *spool.Store, conn string, only func(key, sha string) bool) (*orders.Linked, error) {
	inflight.Add(1)
	defer inflight.Done()
	if l, err := indexLinked(ctx, env, store, conn, only); err == nil {
		return l, nil
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
	return func(ctx context.Context, store *spool.Store, conn string, only func(key, sha string) bool) (*orders.Linked, error) {
		return LoadLinkedFor(ctx, env, store, conn, only)
	}
}

func indexLinked(ctx context.Context, env session.Env, store *spool.Store, conn string, only func(key, sha string) bool) (*orders.Linked, error) {
	m, err := LoadMachine(env)
	if err != nil {
		return nil, err
	}
	x, err := m.Open(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if why := x.NeedsRebuild(); why != "" {
		return nil, errNeedsRebuild
	}
	if _, err := x.SyncConn(ctx, store.Root(), conn); err != nil {
		return nil, err
	}
	return x.LinkedFor(ctx, store, conn, only)
}

var errNeedsRebuild = errors.New("the tracking index needs a rebuild")

// inflight counts the index work running in the background of the app
// (LoadLinked, IndexAfter), so a test can wait for it before its
// directories are removed.
var inflight sync.WaitGroup

// WaitIdle waits until no LoadLinked or IndexAfter runs (tests register it
// as a cleanup after creating the data directory).
func WaitIdle() { inflight.Wait() }
