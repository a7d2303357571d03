package track

import (
	"context"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// LinkedOf is the link input of the stored deliveries ids of connection
// conn (a tab's mailbox rows): those deliveries, the conversations they
// are in and the uploads in them, read from the index's items (no
// payload is parsed, the history file is not read unless an item was
// indexed before items carried their record). An answer links within its
// conversation, so a delivery's links are the ones Linked gives it; the
// cost is what those conversations hold, not the connection's store. An
// id that is not stored is not in it. Sync the connection first.
func (x *Index) LinkedOf(ctx context.Context, store *spool.Store, conn string, ids []string) (*orders.Linked, error) {
	mine, err := x.deliveriesByID(ctx, conn, ids)
	if err != nil {
		return nil, err
	}
	var convs []string
	seen := map[string]bool{}
	for i := range mine {
		convs = addConvs(convs, seen, &mine[i])
	}
	items := mine
	if len(convs) > 0 {
		inConv, err := x.b.ByConv(ctx, convs)
		if err != nil {
			return nil, err
		}
		items = append(inConv, mine...) // a delivery in no conversation is linked to nothing, but stored
	}
	ds, upItems := deliveriesAndUploads(conn, items)
	l, _, err := linkedOfItems(store, conn, seen, ds, upItems)
	return l, err
}

// deliveriesByID reads the delivery items of conn with the
// deliveryAttemptIds ids: through the key index in a few queries when the
// backend can, else one look-up each.
func (x *Index) deliveriesByID(ctx context.Context, conn string, ids []string) ([]Item, error) {
	want := make(map[string]bool, len(ids))
	vals := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" && !want[norm(id)] {
			want[norm(id)] = true
			vals = append(vals, norm(id))
		}
	}
	if len(vals) == 0 {
		return nil, nil
	}
	var its []Item
	done := false
	if vb, ok := x.b.(valuesLookup); ok {
		var err error
		if its, done, err = vb.ByValues(ctx, KeyID, vals); err != nil {
			return nil, err
		}
	}
	if !done {
		for _, v := range vals {
			m, err := x.b.Match(ctx, Match{Value: v, Kinds: []KeyKind{KeyID}, Conn: conn})
			if err != nil {
				return nil, err
			}
			its = append(its, m...)
		}
	}
	out := its[:0]
	for _, it := range its {
		if it.Kind == KindDelivery && it.Conn == conn && want[norm(it.Ref)] {
			out = append(out, it)
		}
	}
	return out, nil
}

// LoadLinkedOf is LoadLinked for the stored deliveries ids only
// (LinkedOf): from the machine's tracking index, brought up to date for
// the connection first, and from the store itself (orders.LoadLinked,
// every stored answer) only when the index cannot be used.
func LoadLinkedOf(ctx context.Context, env session.Env, store *spool.Store, conn string, ids []string) (*orders.Linked, error) {
	inflight.Add(1)
	defer inflight.Done()
	if l, err := withConnIndex(ctx, env, store, conn, func(x *Index) (*orders.Linked, error) {
		return x.LinkedOf(ctx, store, conn, ids)
	}); err == nil || ctx.Err() != nil { // stopped: a newer load replaces it
		return l, err
	}
	return orders.LoadLinked(ctx, store, conn, nil)
}

// DeliveriesLoader is LoadLinkedOf over env as an orders.DeliveriesLoader:
// a tab's link input is its mailbox rows' conversations, not the store.
func DeliveriesLoader(env session.Env) orders.DeliveriesLoader {
	return func(ctx context.Context, store *spool.Store, conn string, ids []string) (*orders.Linked, error) {
		return LoadLinkedOf(ctx, env, store, conn, ids)
	}
}
