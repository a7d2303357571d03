package find

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Results is the screen of one find: the conversations that match,
// newest first.
type Results struct {
	c      *common.Common
	owner  common.TabID
	src    Source
	open   Openers
	keys   keyMap
	query  string
	w, h   int
	req    uint64
	cancel context.CancelFunc

	loading bool
	err     error
	res     track.Result
	stats   track.Stats
	cursor  int
	top     int
}

// New makes the results screen for query; its Init runs the query.
// owner is the stack the screen (and the timeline it opens) belongs to.
// A query that does not parse is shown as the error, with what to type.
func New(c *common.Common, owner common.TabID, src Source, query string, open Openers) *Results {
	return &Results{c: c, owner: owner, src: src, open: open, keys: newKeyMap(), query: query}
}

// Init implements common.Initer: the query runs once the screen is on
// its stack.
func (r *Results) Init() tea.Cmd { return r.search() }

// search runs the query in a command, bounded by Timeout.
func (r *Results) search() tea.Cmd {
	q, err := track.ParseQuery(r.query)
	if err != nil {
		r.err, r.loading = err, false
		return nil
	}
	if r.cancel != nil {
		r.cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	r.cancel, r.loading, r.err = cancel, true, nil
	r.req++ // this screen's latest query; the stack routes the answer here
	req, src := r.req, r.src
	return func() tea.Msg {
		defer cancel()
		res, st, err := src.Find(ctx, q)
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the index did not answer within %s: try again, or run b2bx index on the command line", Timeout)
		}
		return resultMsg{req: req, res: res, stats: st, err: err}
	}
}

// Update implements common.Screen.
func (r *Results) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case resultMsg:
		if msg.req != r.req {
			return r, nil // an older query's answer
		}
		r.loading, r.err, r.res, r.stats = false, msg.err, msg.res, msg.stats
		r.cursor, r.top = 0, 0
	case tea.KeyMsg:
		if ks := common.SplitRunes(msg); ks != nil {
			return common.EachKey[common.Screen](r, ks, common.Screen.Update)
		}
		n := len(r.res.Conversations)
		var moved bool
		switch r.cursor, moved = r.keys.Move(msg, r.cursor, n, 0); {
		case moved:
		case key.Matches(msg, r.keys.Refresh):
			return r, r.search()
		case key.Matches(msg, r.keys.Open):
			if r.loading || n == 0 {
				return r, nil
			}
			return r, OpenTimeline(r.c, r.owner, r.src, r.res.Conversations[r.cursor], r.open)
		}
		r.scroll()
	}
	return r, nil
}

// rows is how many conversations fit.
func (r *Results) rows() int { return max(1, r.h-4) }

func (r *Results) scroll() {
	if r.cursor < r.top {
		r.top = r.cursor
	}
	if r.cursor >= r.top+r.rows() {
		r.top = r.cursor - r.rows() + 1
	}
}

// Selected is the conversation under the cursor (ok false when none).
func (r *Results) Selected() (track.Conversation, bool) {
	if r.cursor < len(r.res.Conversations) {
		return r.res.Conversations[r.cursor], true
	}
	return track.Conversation{}, false
}

// View implements common.Screen.
func (r *Results) View() string {
	st := r.c.Styles
	var b strings.Builder
	b.WriteString(st.Title.Render("find "+safe(r.query)) + "\n")
	switch {
	case r.err != nil:
		b.WriteString(st.Error.Render(st.Marks.Fail+" "+safe(r.err.Error())) + "\n")
		return b.String()
	case r.loading:
		b.WriteString(st.Muted.Render(st.Marks.Wait+" searching every connection's stored files (at most "+Timeout.String()+")…") + "\n")
		return b.String()
	}
	n := len(r.res.Conversations)
	head := human.Count(n, "conversation", "conversations") + ", newest first"
	if r.res.Truncated {
		head += " (more matched: narrow with po:, icr: or -c)"
	}
	if r.stats.Rebuilt {
		head += "; the index was rebuilt: " + safe(r.stats.Reason)
	}
	b.WriteString(st.Muted.Render(head) + "\n")
	if n == 0 {
		b.WriteString("nothing stored matches " + safe(r.query) + "\n")
		return b.String()
	}
	width := max(40, r.w)
	sumW := max(10, width-2-20-2-22-2-14-2-12-2)
	b.WriteString(st.Header.Render(pad("  LAST", 22)+"  "+pad("CONVERSATION", 22)+"  "+pad("CONNECTIONS", 14)+"  "+pad("STATE", 12)+"  "+pad("SUMMARY", sumW)) + "\n")
	end := min(n, r.top+r.rows())
	for i := r.top; i < end; i++ {
		c := r.res.Conversations[i]
		mark := "  "
		if i == r.cursor {
			mark = st.Marks.Cursor + " "
		}
		flag := flagWord(c.State)
		line := mark + pad(when(c.Last), 20) + "  " + pad(safe(c.Label), 22) + "  " + pad(safe(strings.Join(c.Conns, ", ")), 14) + "  " +
			pad(flag, 12) + "  " + pad(safe(c.State.Summary()), sumW)
		switch {
		case i == r.cursor:
			line = st.Selected.Render(line)
		case c.State.IsNeedsAction():
			line = st.Error.Render(line)
		case c.State.IsOverdue():
			line = st.Warn.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// SetSize implements common.Screen.
func (r *Results) SetSize(w, h int) common.Screen {
	r.w, r.h = w, h
	r.scroll()
	return r
}

// ShortHelp implements help.KeyMap.
func (r *Results) ShortHelp() []key.Binding {
	return []key.Binding{r.keys.Up, r.keys.Down, r.keys.Open, r.keys.Refresh} // the stack's help adds the close rule
}

// FullHelp implements help.KeyMap.
func (r *Results) FullHelp() [][]key.Binding {
	return [][]key.Binding{{r.keys.Up, r.keys.Down, r.keys.Top, r.keys.Bottom}, {r.keys.Open, r.keys.Refresh, r.keys.Close}}
}

// Capturing implements common.Screen: no text input here.
func (r *Results) Capturing() bool { return false }

// Closes implements common.Screen: q and esc.
func (r *Results) Closes(k tea.KeyMsg) bool { return key.Matches(k, r.keys.Close) }

// Close implements common.Screen: a running query is cancelled.
func (r *Results) Close() {
	if r.cancel != nil {
		r.cancel()
	}
}

// Title implements common.Screen.
func (r *Results) Title() string { return "find " + cut(safe(r.query), 24) }
