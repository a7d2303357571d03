package table

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/tui/common"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func entries(n int) []apiclient.Entry {
	out := make([]apiclient.Entry, n)
	types := []string{"ORDRSP", "CONTRL", "APERAK"}
	for i := range out {
		out[i] = apiclient.Entry{
			DeliveryAttemptID: fmt.Sprintf("da-%05d", i),
			InterchangeID:     fmt.Sprintf("ic-%05d", i),
			MessageType:       types[i%3],
			PayloadSize:       int64(1000 * (i + 1)),
			PayloadSHA256:     strings.Repeat(fmt.Sprintf("%x", i%16), 64),
			Status:            "due",
			CreatedAt:         t0.Add(-time.Duration(n-i) * time.Minute),
		}
	}
	return out
}

func newTable(w, h int) Model {
	m := New(common.NewStyles(true), func() time.Time { return t0 })
	m.SetSize(w, h)
	return m
}

func TestViewRendersOnlyTheVisibleWindow(t *testing.T) {
	m := newTable(100, 11)
	m.SetRows(entries(10000), nil)
	v := m.View()
	require.Equal(t, 11, strings.Count(v, "\n")+1, "header + 10 rows")
	require.Contains(t, v, "> ")
	require.Contains(t, v, "ic-00000")
	require.NotContains(t, v, "ic-00010")

	m.Move(25)
	v = m.View()
	require.Contains(t, v, "ic-00025")
	sel, ok := m.Selected()
	require.True(t, ok)
	require.Equal(t, 26, sel.Pos)
	line := lineWith(t, v, "ic-00025")
	require.True(t, strings.HasPrefix(line, "> "), "the selected row carries the > marker without colour: %q", line)

	m.Bottom()
	require.Contains(t, m.View(), "ic-09999")
	m.Top()
	require.Contains(t, m.View(), "ic-00000")
}

func TestCellsAreSanitisedAndFormatted(t *testing.T) {
	m := newTable(120, 5)
	e := entries(1)
	e[0].InterchangeID = "evil\x1b[31mred\u202e"
	e[0].MessageType = "ORD\x07"
	e[0].PayloadSize = 15 << 20
	m.SetRows(e, []int{7})
	v := m.View()
	require.NotContains(t, v, "\x1b")
	require.NotContains(t, v, "\x07")
	require.NotContains(t, v, "\u202e")
	require.Contains(t, v, "evil^[[31mred<U+202E>")
	require.Contains(t, v, "15.0 MiB")
	require.Contains(t, v, ">   7 2026-11-29") // position, right-aligned in a 3-wide column after the marker
	require.Contains(t, v, "2026-11-29")
	require.Contains(t, v, "1m")
	require.Contains(t, v, "000000000000 ")
}

func TestCursorStaysOnTheSameIDAcrossReloadAndFilter(t *testing.T) {
	m := newTable(100, 8)
	es := entries(30)
	m.SetRows(es, nil)
	m.Move(4)
	id, _ := m.SelectedID()
	require.Equal(t, "da-00004", id)

	m.SetRows(es[2:], seq(3, 28)) // two entries were taken meanwhile
	id, _ = m.SelectedID()
	require.Equal(t, "da-00004", id)

	m.SetFilter("aperak")
	require.Equal(t, 10, m.Shown())
	for _, r := range m.view {
		require.Equal(t, "APERAK", m.rows[r].Entry.MessageType)
	}
	// da-00004 is a CONTRL: gone from the view, cursor goes to the top
	require.Equal(t, 0, m.Cursor())
	m.SetFilter("aperak ic-0002")
	require.Equal(t, 4, m.Shown()) // APERAK is every third from 2: ic-00020, 23, 26, 29
	m.SetFilter("no-such-thing")
	require.Equal(t, 0, m.Shown())
	require.Contains(t, m.View(), "no entry matches the filter")
	_, ok := m.Selected()
	require.False(t, ok)
	m.SetFilter("")
	require.Equal(t, 28, m.Shown())
}

func TestRemoveAndStatusOverride(t *testing.T) {
	m := newTable(100, 8)
	m.SetRows(entries(3), nil)
	m.SetStatus("da-00000", "claimed")
	require.Contains(t, lineWith(t, m.View(), "ic-00000"), "claimed")
	m.Remove("da-00000")
	require.Equal(t, 2, m.Len())
	require.NotContains(t, m.View(), "ic-00000")
	require.Equal(t, "da-00001", m.Rows()[0].ID())
	r, _ := m.Selected()
	require.Equal(t, 2, r.Pos, "positions are the server's, not renumbered")
}

func TestNarrowLayoutDropsCreatedColumn(t *testing.T) {
	m := newTable(80, 4)
	m.SetRows(entries(2), nil)
	v := m.View()
	require.NotContains(t, v, "created")
	for _, l := range strings.Split(v, "\n") {
		require.LessOrEqual(t, len([]rune(l)), 80, "%q", l)
	}
	m.SetSize(140, 4)
	require.Contains(t, m.View(), "created")
	m.SetSize(140, 9)
	require.Equal(t, 9, strings.Count(m.View(), "\n")+1, "two rows padded to the table's height, so the pane below stays put")
}

func TestHelpers(t *testing.T) {
	require.Equal(t, "512 B", HumanSize(512))
	require.Equal(t, "1.5 KiB", HumanSize(1536))
	require.Equal(t, "16.0 MiB", HumanSize(16<<20))
	require.Equal(t, "—", Age(t0, time.Time{}))
	require.Equal(t, "0s", Age(t0, t0.Add(time.Hour)))
	require.Equal(t, "59m", Age(t0, t0.Add(-59*time.Minute)))
	require.Equal(t, "47h", Age(t0, t0.Add(-47*time.Hour)))
	require.Equal(t, "3d", Age(t0, t0.Add(-72*time.Hour)))
	require.Equal(t, "abcdef012345", ShortSHA("abcdef0123456789"))
}

func lineWith(t *testing.T, v, s string) string {
	t.Helper()
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line contains %q in\n%s", s, v)
	return ""
}

func seq(first, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = first + i
	}
	return out
}
