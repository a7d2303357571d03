package track

import (
	"context"
	"fmt"
	"strings"
	"time"
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
		out = append(out, fmt.Sprintf("%-20s  %-12s %s", at, s.Kind, s.Title))
		for _, l := range s.Lines {
			out = append(out, indent+l)
		}
		out = append(out, indent+"source: "+s.Source)
	}
	return out
}
