package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/stretchr/testify/require"
)

func TestFill(t *testing.T) {
	require.Equal(t, []string{"a", "", ""}, Fill([]string{"a"}, 3))
	require.Equal(t, []string{"a", "b"}, Fill([]string{"a", "b", "c"}, 2))
	require.Equal(t, []string{"", ""}, Fill(nil, 2))
	require.Empty(t, Fill([]string{"a"}, 0))
}

// TestWrapMovesTokensWhole: a stored path (with a UUID) near the end of
// a line moves whole to the next line instead of breaking mid-UUID.
func TestWrapMovesTokensWhole(t *testing.T) {
	path := "/home/op/.local/share/b2bx/spool/conn-1/2026/12/3f2a9c1e-6b7d-4e0f-9a11-2c3d4e5f6a7b.edi"
	line := "stored durably as " + path + " · 612 bytes"
	for w := len(path); w < len(line); w++ {
		got := Wrap(line, w)
		found := false
		for _, l := range got {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %q is wider", w, l)
			}
			found = found || strings.Contains(l, path)
		}
		if !found {
			t.Fatalf("width %d: the path is broken across lines: %q", w, got)
		}
	}
	// Only a token wider than the width is cut.
	got := Wrap(path, 20)
	if strings.Join(got, "") != path {
		t.Fatalf("a too-long token lost bytes: %q", got)
	}
}
