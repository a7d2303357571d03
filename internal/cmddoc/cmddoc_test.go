package cmddoc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteHeadAndTail(t *testing.T) {
	d := Doc{
		Name:     "x",
		Synopsis: []string{"x FILE [--json]", "(with -c NAME)"},
		About:    "  Does x.\n",
		Examples: []Example{{"x a.edi", "one file"}, {"x - < a.edi", ""}},
		Exits:    []Exit{{OK, "done"}, {Usage, "bad"}},
		Topic:    "x.md",
	}
	var h, tl strings.Builder
	WriteHead(&h, d)
	WriteTail(&tl, d)
	require.Equal(t, "synopsis:\n  b2bx x FILE [--json]\n  (with -c NAME)\n\nDoes x.\n\n", h.String())
	require.Equal(t, "\nexamples:\n  # one file\n  b2bx x a.edi\n\n  b2bx x - < a.edi\n"+
		"\nexit codes:\n  0    done\n  2    bad\n  130  a second Ctrl-C or SIGTERM: quit at once\n"+
		"\nmore: docs/x.md\n", tl.String())

	// A command that documents 130 itself does not get the general line.
	d.Exits = append(d.Exits, Exit{Interrupted, "cut short"})
	tl.Reset()
	WriteTail(&tl, d)
	require.Equal(t, 1, strings.Count(tl.String(), "130"))
}

func TestLookupAndAll(t *testing.T) {
	d, ok := Lookup("fetch")
	require.True(t, ok)
	require.Equal(t, "fetch", d.Name)
	_, ok = Lookup("no-such")
	require.False(t, ok)
	all := All()
	require.Len(t, all, len(docs))
	for i := 1; i < len(all); i++ {
		require.Less(t, all[i-1].Name, all[i].Name, "sorted, no duplicates")
	}
}
