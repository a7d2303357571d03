package eventview

import (
	"path/filepath"
	"testing"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// testdata is a file of the events package's fixtures.
func testdata(name string) string {
	return filepath.Join("..", "..", "apiclient", "events", "testdata", name)
}

// testCommon has NO_COLOR styles: any escape byte in a view comes from
// the data, and the selected row must show its marker.
func testCommon(w, h int) *common.Common {
	return &common.Common{Styles: common.NewStyles(true), Width: w, Height: h}
}

// run runs a Cmd and every Cmd of a batch it returns, feeding the
// results to the model (no program needed): enough for the screen's
// own loads.
func run(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, b...)
			continue
		}
		switch msg.(type) {
		case loadedMsg, secretMsg:
			var next tea.Cmd
			m, next = m.Update(msg)
			queue = append(queue, next)
		}
	}
	return m
}

// opened is the screen after inspecting path at w×h.
func opened(t testing.TB, path string, w, h int) Model {
	t.Helper()
	m := New(testCommon(w, h), Options{Path: path})
	m = run(t, m, m.Init())
	if m.stage != stageReport {
		t.Fatalf("stage %d after loading %s, want the report", m.stage, path)
	}
	return m
}

// press sends keys (bubbletea key names or runes) one by one and runs
// the Cmds they return.
func press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = m.Update(keyMsg(k))
		m = run(t, m, cmd)
	}
	return m
}

// keyMsg is the key message of a key by its name (commontest.Key).
var keyMsg = commontest.Key
