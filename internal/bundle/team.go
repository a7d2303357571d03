package bundle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ColleagueFunc finds a delivery this machine did not store in the team
// store (teamstore.Store.Delivery): its sidecar, its payload bytes and who
// stored it ("alice on host-3"); ok false when the team has none either.
type ColleagueFunc func(ctx context.Context, connectionID, id string) (meta spool.Meta, payload []byte, by string, ok bool, err error)

// colleague is a colleague's delivery made ready for the bundle: its
// payload checked against the sidecar's SHA-256 and size, written to an
// owner-only temporary file (removed by done) and linked like a stored
// one. nil when o has no Colleague or the team has no such delivery.
type colleague struct {
	l    *orders.Linked
	d    *orders.Delivery
	by   string
	done func()
}

func colleagueDelivery(ctx context.Context, o Options, l *orders.Linked) (*colleague, error) {
	if o.Colleague == nil {
		return nil, nil
	}
	m, payload, by, ok, err := o.Colleague(ctx, o.ConnectionID, o.ID)
	if err != nil {
		return nil, fmt.Errorf("reading delivery %q from the team store failed; nothing was written: %w", termsafe.String(o.ID), err)
	}
	if !ok {
		return nil, nil
	}
	if got := sumOf(payload); !strings.EqualFold(got, m.SHA256) || int64(len(payload)) != m.Size {
		return nil, fmt.Errorf("the team store's bytes of delivery %q (%d bytes, SHA-256 %s) are not the ones its sidecar records (%d bytes, %s); nothing was written",
			termsafe.String(o.ID), len(payload), got, m.Size, termsafe.String(m.SHA256))
	}
	dir, err := os.MkdirTemp("", "b2bx-bundle-team-")
	if err != nil {
		return nil, err
	}
	done := func() { _ = os.RemoveAll(dir) }
	path := filepath.Join(dir, spool.SafeName(o.ID)+".edi")
	if err := os.WriteFile(path, payload, 0o600); err != nil {
		done()
		return nil, err
	}
	l, err = l.WithDelivery(ctx, spool.Stored{Meta: m, Path: path})
	if err != nil {
		done()
		return nil, err
	}
	d, ok := l.Delivery(o.ID)
	if !ok {
		done()
		return nil, nil
	}
	return &colleague{l: l, d: d, by: by, done: done}, nil
}

// fromTheTeam says in the README where a colleague's delivery came from.
func (b *builder) fromTheTeam(by string) {
	for _, f := range b.files {
		if f.name == "README.txt" {
			fmt.Fprintf(&f.body, "\nFrom the team store\n  This machine did not store this delivery: its bytes are from the team store,\n  fetched by %s, and were checked against its SHA-256 before use.\n", termsafe.String(by))
		}
	}
}
