package viewer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/tui/common"
)

// fixture is the path of a canonical EDIFACT fixture.
func fixture(name string) string {
	return filepath.Join("..", "..", "testdata", "edifact", name)
}

// testCommon has NO_COLOR styles: any escape byte in a view comes from
// the data, and the selected row must show its marker.
func testCommon() *common.Common {
	return &common.Common{Styles: common.NewStyles(true), Width: 120, Height: 40}
}

// open opens a file in a 120x40 viewer; the viewer is closed at the end.
func open(t testing.TB, path string) Model {
	t.Helper()
	src, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m := New(testCommon(), src, Options{}).SetSize(120, 40)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// fromBytes is open for data in memory.
func fromBytes(t testing.TB, data []byte) Model {
	t.Helper()
	src, err := FromBytes("test.edi", data)
	if err != nil {
		t.Fatal(err)
	}
	return New(testCommon(), src, Options{}).SetSize(120, 40)
}

// keyMsg is the key message of a key by its name (commontest.Key).
var keyMsg = commontest.Key

// press sends keys and runs every command they return to the end (the
// search's steps), like the program's loop would, dropping other
// messages (the input's cursor blink).
func press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = m.Update(keyMsg(k))
		m = drain(t, m, cmd)
	}
	return m
}

// typeText types s into the focused input, one key per rune.
func typeText(t testing.TB, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		var cmd tea.Cmd
		m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		m = drain(t, m, cmd)
	}
	return m
}

// drain runs cmd and feeds the search steps it produces back in (the
// viewer's input has a static cursor: no timers among its commands).
func drain(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 100000 {
			t.Fatal("search never ends")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case searchStepMsg:
			var next tea.Cmd
			m, next = m.Update(msg)
			queue = append(queue, next)
		}
	}
	return m
}

// selectedLine is the list row with the cursor marker.
func selectedLine(t testing.TB, view string) string {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "> ") {
			return l
		}
	}
	t.Fatalf("no selected row in:\n%s", view)
	return ""
}

// generateOrders builds a valid ORDERS interchange of about size bytes,
// ~24 bytes a segment like the edi benchmark's (16 MiB: ~715k segments).
func generateOrders(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	seg := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteString("'\n")
	}
	b.WriteString("UNA:+.? '\n")
	seg("UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+BENCH000001++ORDERS")
	seg("UNH+1+ORDERS:D:96A:UN:EAN008")
	seg("BGM+220+PO-BENCH-000001+9")
	seg("DTM+137:20250312:102")
	seg("NAD+BY+4012345000009::9")
	seg("NAD+SU+4098765000003::9")
	n, lines := 6, 0
	for b.Len() < size-200 {
		lines++
		seg("LIN+%d++%013d:EN", lines, 4000000000000+lines*7)
		seg("PIA+1+ART-%06d:SA", lines)
		seg("IMD+F++:::Article %d, 500 g", lines)
		seg("QTY+21:%d", 1+lines%48)
		seg("DTM+2:202503%02d:102", 1+lines%28)
		seg("PRI+AAA:%d.%02d", 1+lines%97, lines%100)
		n += 6
	}
	seg("UNS+S")
	seg("CNT+2:%d", lines)
	seg("UNT+%d+1", n+3)
	seg("UNZ+1+BENCH000001")
	return b.Bytes()
}

// writeTemp writes data to a file in a test directory.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
