package tui

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the key tables of docs/app.md from the key maps")

// TestKeysDoc: the key tables in docs/app.md are what the key maps
// generate. After changing a key: go generate ./tui.
func TestKeysDoc(t *testing.T) {
	const path = "../docs/app.md"
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(raw)
	i, j := strings.Index(doc, KeysDocBegin), strings.Index(doc, KeysDocEnd)
	require.True(t, i >= 0 && j > i, "docs/app.md has the markers %q and %q", KeysDocBegin, KeysDocEnd)
	committed := doc[i+len(KeysDocBegin) : j]
	generated := "\n\n" + KeysMarkdown() + "\n"
	if *updateDocs && committed != generated {
		doc = doc[:i+len(KeysDocBegin)] + generated + doc[j:]
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		committed = generated
	}
	if committed != generated {
		c, g := strings.Split(committed, "\n"), strings.Split(generated, "\n")
		n := 0
		for n < len(c) && n < len(g) && c[n] == g[n] {
			n++
		}
		at := func(l []string) string {
			if n < len(l) {
				return l[n]
			}
			return "(end)"
		}
		t.Fatalf("the key tables of docs/app.md are stale (line %d of the generated part): run go generate ./tui\ncommitted: %s\ngenerated: %s", n+1, at(c), at(g))
	}
}

// TestKeysMarkdownNamesActions: every key a user may rebind is shown
// with the config.toml action name that rebinds it, and the tab's keys
// from its key map.
func TestKeysMarkdownNamesActions(t *testing.T) {
	md := KeysMarkdown()
	for _, a := range Actions() {
		require.Contains(t, md, "| `"+a.Name+"` |", a.Name)
	}
	require.Contains(t, md, "| `P` | process head | `process` |")
	require.Contains(t, md, "| `ctrl+c` | quit now | fixed |")
	require.Contains(t, md, "| `space` | mark row | `mark` |")
}
