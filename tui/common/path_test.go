package common

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExpandHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for in, want := range map[string]string{
		"~":              home,
		"~/":             home,
		"~/orders/a.edi": filepath.Join(home, "orders", "a.edi"),
		"~other/a.edi":   "~other/a.edi",
		"/abs/~/a.edi":   "/abs/~/a.edi",
		"rel/a.edi":      "rel/a.edi",
		"":               "",
	} {
		require.Equal(t, want, ExpandHome(in), "%q", in)
	}
}
