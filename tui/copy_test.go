package tui

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/tui/common"
)

// TestCopyWritesOSC52: a Copy from any screen puts the value on the
// terminal's clipboard with the OSC 52 sequence (tmux-wrapped under
// $TMUX) and the footer says what was copied.
func TestCopyWritesOSC52(t *testing.T) {
	for _, tmux := range []bool{false, true} {
		var out bytes.Buffer
		old := clipOut
		clipOut = &out
		t.Cleanup(func() { clipOut = old })
		if tmux {
			t.Setenv("TMUX", "/tmp/tmux-1/default,1,0")
		} else {
			t.Setenv("TMUX", "")
		}
		m, _ := newTestModel(t)
		id := "17335371-9921-4c81-ab38-6ad4fcfb5f52"
		m, cmd := updateCmd(t, m, common.Copy{Item: common.CopyItem{Label: "delivery ID", Value: id}})
		require.NotNil(t, cmd)
		m = update(t, m, cmd())
		want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(id)) + "\a"
		if tmux {
			want = "\x1bPtmux;" + strings.ReplaceAll(want, "\x1b", "\x1b\x1b") + "\x1b\\"
		}
		require.Equal(t, want, out.String())
		require.Contains(t, m.View(), "copied delivery ID 17335371-9921-4c81-ab38… (36 characters)")
	}
}

// TestFooterErrorKeepsIDsWhole: a long error wraps at spaces only, so
// its correlation ID stays on one line (a mouse selection copies it).
func TestFooterErrorKeepsIDsWhole(t *testing.T) {
	m, _ := newTestModel(t)
	id := "0634cfe6-77e7-11ab-6f33-402280bf12e7"
	for pad := 60; pad < 100; pad += 7 {
		m2 := m.showError(common.ErrorMsg{Text: strings.Repeat("x", pad) + " correlation " + id + " and then some more words"})
		found := false
		for _, l := range m2.errLines() {
			found = found || strings.Contains(l, id)
		}
		require.True(t, found, "pad %d: the ID is broken: %q", pad, m2.errLines())
	}
}
