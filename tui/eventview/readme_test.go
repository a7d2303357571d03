package eventview

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeScreen: the manual's picture of the screen (docs/events.md)
// is the real view at its stated size and keys.
func TestReadmeScreen(t *testing.T) {
	raw, err := os.ReadFile("../../docs/events.md")
	require.NoError(t, err)
	const marker = "The screen at 100×30, after `:events apiclient/events/testdata/batch_issues.json`\nand `j j`:\n\n```\n"
	doc := string(raw)
	i := strings.Index(doc, marker)
	require.GreaterOrEqual(t, i, 0, "the screen in docs/events.md")
	want := doc[i+len(marker):]
	want = want[:strings.Index(want, "```")]

	t.Chdir("../..")
	m := opened(t, "apiclient/events/testdata/batch_issues.json", 100, 30)
	m = press(t, m, "j", "j")
	var got []string
	for _, l := range strings.Split(m.View(), "\n") {
		got = append(got, strings.TrimRight(l, " "))
	}
	require.Equal(t, strings.TrimRight(want, "\n"), strings.TrimRight(strings.Join(got, "\n"), "\n"))
}
