package tui

import (
	"context"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// TeamData is the team's data as the app reads it (cmd/b2bx gives it
// teamstore.Faces when config.toml has a [store] url): find and its
// timeline, the start screen's figures, H and the upload guard read the
// team's index, key plans count the team's uploads. It is opened off the
// UI goroutine (Start) and, until it is open or when it cannot be used,
// this machine's data answers; Note is the one line the status bar shows
// then. nil: this machine's data only.
type TeamData interface {
	// Start opens the team store on a goroutine of its own (bounded).
	Start(ctx context.Context)
	// Index waits for the open (bounded) and is the team's index, or nil
	// (this machine's answers). The caller does not close it.
	Index(ctx context.Context) *track.Index
	// Note says why the team's data is not used; "" when it is (or not
	// known yet). Quick: read once a second.
	Note() string
	// Loader, SelectLoader and Timeline are track.Loader,
	// track.SelectLoader and track.MachineTimeline over the team's index.
	Loader(env session.Env) orders.Loader
	SelectLoader(env session.Env) orders.SelectLoader
	Timeline(env session.Env) func(ctx context.Context, conn, id string) ([]string, error)
	// SentBy says who sent the team's uploads of conn
	// (conntab.SentByKey → "alice on host-3"); nil when not known.
	SentBy(ctx context.Context, conn string) map[string]string
	// Delivery is a delivery only a colleague fetched, for a bundle (T;
	// bundle.ColleagueFunc); DeliveryAt the one whose payload a timeline
	// step names (path), for the viewer. Both check the bytes' SHA-256;
	// ok false when the team has none (or is not open).
	Delivery(ctx context.Context, conn, id string) (meta spool.Meta, payload []byte, by string, ok bool, err error)
	DeliveryAt(ctx context.Context, path string) (meta spool.Meta, payload []byte, by string, ok bool, err error)
	// AttachKeyPlans makes s's key plans count the team's uploads
	// (never waits for the open).
	AttachKeyPlans(ctx context.Context, s *spool.Store)
}

// teamViewer opens the viewer on the team store's copy of the payload at
// path when this machine has none (a colleague fetched it), read-only
// and saying so; ok false when the team has none either.
func teamViewer(ctx context.Context, c *common.Common, owner common.TabID, t TeamData, path string) (common.Opened, bool) {
	if t == nil {
		return common.Opened{}, false
	}
	m, data, by, ok, err := t.DeliveryAt(ctx, path)
	switch {
	case err != nil:
		return common.Opened{Tab: owner, Err: fmt.Errorf("the viewer cannot open it from the team store: %w", err)}, true
	case !ok:
		return common.Opened{}, false
	}
	name := "delivery " + m.DeliveryAttemptID + " " + m.MessageType
	return viewer.OpenedBytes(c, owner, 0, name, data, "from the team store, fetched by "+by, viewer.Options{}), true
}

// teamIndexFunc is the dashboard's source of the team's index; nil
// without team data.
func teamIndexFunc(t TeamData) func(ctx context.Context) *track.Index {
	if t == nil {
		return nil
	}
	return t.Index
}
