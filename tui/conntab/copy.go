package conntab

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/internal/clip"
	"github.com/nutrab2b/b2bx/tui/common"
)

// copyItems turns clip's lists into the app's, each value once (an ID
// the entry and its stored copy share is offered once). clip never
// lists a secret or a claim token.
func copyItems(lists ...[]clip.Item) []common.CopyItem {
	var out []common.CopyItem
	seen := map[string]bool{}
	for _, l := range lists {
		for _, it := range l {
			if it.Value == "" || seen[it.Label+"\x00"+it.Value] {
				continue
			}
			seen[it.Label+"\x00"+it.Value] = true
			out = append(out, common.CopyItem{Label: it.Label, Value: it.Value})
		}
	}
	return out
}

// copyValues are the values y offers in the mailbox: the claim's (its
// entry, correlation ID, stored copy) while the panel shows one, else
// the selected entry's and its stored copy's; and the last bundle's path.
func (m Model) copyValues() []common.CopyItem {
	var lists [][]clip.Item
	if cl := m.claim; cl != nil {
		lists = append(lists, clip.ForEntry(cl.entry))
		if c := m.cur(); c.Held != nil {
			lists = append(lists, []clip.Item{{Label: "correlation ID", Value: c.Held.CorrelationID()}})
		}
		if cl.res != nil {
			if cl.res.CorrelationID != "" {
				lists = append(lists, []clip.Item{{Label: "correlation ID", Value: cl.res.CorrelationID}})
			}
			if cl.res.Stored != nil {
				lists = append(lists, clip.ForStored(*cl.res.Stored))
			}
		}
	} else if r, ok := m.table.Selected(); ok {
		lists = append(lists, clip.ForEntry(r.Entry))
		if d, stored := m.links.cur.Delivery(r.ID()); stored {
			lists = append(lists, clip.ForStored(d.Stored))
		}
	}
	if m.bundlePath != "" {
		lists = append(lists, []clip.Item{{Label: "bundle path", Value: m.bundlePath}})
	}
	return copyItems(lists...)
}

// copySelected is y in the mailbox.
func (m Model) copySelected() (Model, tea.Cmd) {
	return m, common.CopyCmd(m.id, m.copyValues())
}

// copyValues of the uploads screen: the upload's (key, IDs, hash,
// correlation ID) or the answer's stored delivery.
func (a answersScreen) copyValues() []common.CopyItem {
	var lists [][]clip.Item
	r, ok := a.selected()
	l := a.linked
	switch {
	case !ok || l == nil:
	case r.kind == rowUpload:
		lists = append(lists, clip.ForUpload(l.Uploads[r.upload]))
	case r.kind == rowUnreadable:
		if d, ok := l.Delivery(r.delivery); ok {
			lists = append(lists, clip.ForStored(d.Stored))
		}
	default:
		an := l.Index.Answers[r.answer]
		if d, ok := l.Delivery(an.ID); ok {
			lists = append(lists, clip.ForStored(d.Stored))
		} else {
			lists = append(lists, []clip.Item{{Label: "delivery ID", Value: an.ID}})
		}
	}
	if a.bundle != "" {
		lists = append(lists, []clip.Item{{Label: "bundle path", Value: a.bundle}})
	}
	return copyItems(lists...)
}
