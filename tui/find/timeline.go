package find

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/track"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Timeline is the screen of one conversation: every step in time order
// with its source; enter opens the step's own screen.
type Timeline struct {
	c     *common.Common
	owner common.TabID
	open  Openers
	keys  keyMap
	conv  track.Conversation
	steps []track.Step
	w, h  int

	cursor int
	top    int // first visible line
	info   string
}

// OpenTimeline reads conversation c's timeline in a command (it reads
// the stored files of its steps) and opens the screen on owner's stack.
func OpenTimeline(cc *common.Common, owner common.TabID, src Source, c track.Conversation, open Openers) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		defer cancel()
		return common.Opened{Tab: owner, Screen: NewTimeline(cc, owner, c, src.Timeline(ctx, c), open)}
	}
}

// NewTimeline is the timeline screen of c with its steps (track.Index.Timeline).
func NewTimeline(c *common.Common, owner common.TabID, conv track.Conversation, steps []track.Step, open Openers) *Timeline {
	return &Timeline{c: c, owner: owner, open: open, keys: newKeyMap(), conv: conv, steps: steps}
}

// Steps are the steps shown.
func (t *Timeline) Steps() []track.Step { return t.steps }

// Cursor is the selected step.
func (t *Timeline) Cursor() int { return t.cursor }

// Update implements common.Screen.
func (t *Timeline) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return t, nil
	}
	if ks := common.SplitRunes(k); ks != nil {
		return common.EachKey[common.Screen](t, ks, common.Screen.Update)
	}
	n := len(t.steps)
	t.info = ""
	var moved bool
	switch t.cursor, moved = t.keys.Move(k, t.cursor, n, 0); {
	case moved:
	case key.Matches(k, t.keys.Open):
		if n == 0 {
			return t, nil
		}
		cmd := t.open.Open(t.owner, t.steps[t.cursor].Open)
		if cmd == nil {
			t.info = "this step has no screen of its own"
		}
		return t, cmd
	}
	t.scroll()
	return t, nil
}

// stepLines is how many lines step i takes.
func (t *Timeline) stepLines(i int) int { return 2 + len(t.steps[i].Lines) }

func (t *Timeline) scroll() {
	avail := max(1, t.h-3)
	if t.cursor < t.top {
		t.top = t.cursor
	}
	for t.top < t.cursor {
		used := 0
		for i := t.top; i <= t.cursor; i++ {
			used += t.stepLines(i)
		}
		if used <= avail {
			break
		}
		t.top++
	}
}

// View implements common.Screen.
func (t *Timeline) View() string {
	st := t.c.Styles
	var b strings.Builder
	head := safe(t.conv.Label)
	if f := t.conv.State.Flag(); f != "" {
		head += " — " + strings.ToUpper(f)
		if s := t.conv.State.Summary(); s != "" {
			head += ": " + safe(s)
		}
	}
	b.WriteString(st.Title.Render(cut(head, max(20, t.w))) + "\n")
	if t.info != "" {
		b.WriteString(st.Warn.Render(st.Marks.Warn+" "+t.info) + "\n")
	} else {
		b.WriteString(st.Muted.Render(human.Count(len(t.steps), "step", "steps")+" in time order; enter opens a step") + "\n")
	}
	if len(t.steps) == 0 {
		b.WriteString("nothing to tell\n")
		return b.String()
	}
	width := max(40, t.w)
	avail, used := max(1, t.h-3), 0
	for i := t.top; i < len(t.steps) && used < avail; i++ {
		s := t.steps[i]
		mark := "  "
		if i == t.cursor {
			mark = st.Marks.Cursor + " "
		}
		line := mark + when(s.At) + "  " + pad(s.Kind, 12) + " " + s.Title // titles and lines are sanitised by track
		line = cut(line, width)
		if i == t.cursor {
			line = st.Selected.Render(line)
		} else if s.Kind == "refused" || strings.Contains(s.Title, "rejected") {
			line = st.Error.Render(line)
		}
		b.WriteString(line + "\n")
		used++
		for _, l := range s.Lines {
			if used >= avail {
				break
			}
			b.WriteString(cut(strings.Repeat(" ", 38)+l, width) + "\n")
			used++
		}
		if used < avail {
			b.WriteString(st.Muted.Render(cut(strings.Repeat(" ", 38)+"source: "+s.Source, width)) + "\n")
			used++
		}
	}
	return b.String()
}

// SetSize implements common.Screen.
func (t *Timeline) SetSize(w, h int) common.Screen {
	t.w, t.h = w, h
	t.scroll()
	return t
}

// ShortHelp implements help.KeyMap.
func (t *Timeline) ShortHelp() []key.Binding {
	return []key.Binding{t.keys.Up, t.keys.Down, t.keys.Open} // the stack's help adds the close rule
}

// FullHelp implements help.KeyMap.
func (t *Timeline) FullHelp() [][]key.Binding {
	return [][]key.Binding{{t.keys.Up, t.keys.Down, t.keys.Top, t.keys.Bottom}, {t.keys.Open, t.keys.Close}}
}

// Capturing implements common.Screen.
func (t *Timeline) Capturing() bool { return false }

// Closes implements common.Screen: q and esc.
func (t *Timeline) Closes(k tea.KeyMsg) bool { return key.Matches(k, t.keys.Close) }

// Close implements common.Screen: it owns nothing.
func (t *Timeline) Close() {}

// Title implements common.Screen.
func (t *Timeline) Title() string { return "timeline " + cut(safe(t.conv.Label), 24) }
