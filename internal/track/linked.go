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
// conversation however many a connection has. Every upload of the
// history is in it; the answers of the others are not.
func (x *Index) LinkedFor(ctx context.Context, store *spool.Store, conn string, only func(key, sha string) bool) (*orders.Linked, error) {
	hist, err := store.Uploads(conn)
	if err != nil {
		return nil, err
	}
	ups, err := x.b.ByKind(ctx, KindUpload, time.Time{})
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
			as, vs := it.answersAndVersions()
			ds = append(ds, orders.DeliveryWith(st, as, vs...))
		}
	}
	return orders.NewLinked(hist, ds), nil
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
