package track

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/session"
)

// TimelineOf tells the conversation of one delivery or upload of
// connection conn: id is a delivery ID, an upload ID or an idempotency
// key (what b2bx bundle is given). ok is false when the index holds
// nothing with that id.
func (x *Index) TimelineOf(ctx context.Context, conn, id string, sla SLAFunc) (c Conversation, steps []Step, ok bool, err error) {
	for _, prefix := range []string{"id:", "key:"} {
		q, perr := ParseQuery(prefix + id)
		if perr != nil {
			return c, nil, false, perr
		}
		q.Conn = conn
		r, err := x.Find(ctx, q, sla)
		if err != nil {
			return c, nil, false, err
		}
		if len(r.Conversations) > 0 {
			c = r.Conversations[0]
			return c, x.Timeline(ctx, c), true, nil
		}
	}
	return c, nil, false, nil
}

// TimelineText is a conversation's timeline as text lines, one step per
// line with its details and source below (b2bx find --timeline, a
// bundle's timeline.txt). Titles and lines are sanitised by Timeline.
func TimelineText(c Conversation, steps []Step) []string {
	head := safe(c.Label)
	if f := c.State.Flag(); f != "" {
		head += " — " + strings.ToUpper(f) + ": " + safe(c.State.Summary())
	}
	out := []string{head}
	indent := strings.Repeat(" ", 20) + "  " + strings.Repeat(" ", 12) + "   "
	for _, s := range steps {
		at := "-"
		if !s.At.IsZero() {
			at = s.At.UTC().Format(time.RFC3339)
		}
		title := s.Title
		if s.By != "" { // a team store's step: who did it
			title += " — by " + s.By
		}
		out = append(out, fmt.Sprintf("%-20s  %-12s %s", at, s.Kind, title))
		for _, l := range s.Lines {
			out = append(out, indent+l)
		}
		out = append(out, indent+"source: "+s.Source)
	}
	return out
}

// MachineTimeline is a bundle's timeline source (bundle.TimelineFunc)
// over this machine's index, for both faces: the profiles are read (no
// secret), the index is opened and brought up to date, and the
// conversation of the delivery or upload id is told as `b2bx find
// --timeline` tells it. say (nil: silent) gets the one line about a
// rebuild.
func MachineTimeline(env session.Env, say func(string)) func(ctx context.Context, conn, id string) ([]string, error) {
	return func(ctx context.Context, conn, id string) ([]string, error) {
		m, err := LoadMachine(env)
		if err != nil {
			return nil, err
		}
		x, err := m.Open(ctx, say)
		if err != nil {
			return nil, err
		}
		defer x.Close()
		if _, err := x.Sync(ctx); err != nil && !errors.Is(err, ErrStale) {
			return nil, err
		}
		return IndexTimeline(x, m.SLA())(ctx, conn, id)
	}
}

// IndexTimeline is a bundle's timeline source over an index already open
// (a team store's: its steps say who did them), told as `b2bx find
// --timeline` tells it.
func IndexTimeline(x *Index, sla SLAFunc) func(ctx context.Context, conn, id string) ([]string, error) {
	return func(ctx context.Context, conn, id string) ([]string, error) {
		c, steps, ok, err := x.TimelineOf(ctx, conn, id, sla)
		if err != nil {
			return nil, err
		}
		if !ok {
			return []string{"The tracking index holds nothing about " + safe(id) + " on this connection."}, nil
		}
		return TimelineText(c, steps), nil
	}
}

// ConnsOf lists the connections whose stored deliveries or uploads carry
// id (a deliveryAttemptId, an uploadId, an interchangeId or an
// idempotency key), so a bundle needs no -c when the store has it once.
func (x *Index) ConnsOf(ctx context.Context, id string) ([]string, error) {
	v := norm(id)
	if v == "" {
		return nil, nil
	}
	items, err := x.b.Match(ctx, Match{Value: v, Kinds: []KeyKind{KeyID, KeyKey}, Limit: DefaultLimit})
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		if (it.Kind == KindDelivery || it.Kind == KindUpload) && it.Conn != "" && !seen[it.Conn] {
			seen[it.Conn] = true
			out = append(out, it.Conn)
		}
	}
	sort.Strings(out)
	return out, nil
}
