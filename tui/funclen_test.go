package tui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxFuncLines bounds a hand-written function in tui/ (issue 20 §5): a
// longer one is split along its seams.
const maxFuncLines = 80

// TestNoLongFunctions: no hand-written function under tui/ (tests
// included) is longer than maxFuncLines lines; generated files are left
// out.
func TestNoLongFunctions(t *testing.T) {
	var long []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		long = append(long, longFuncs(t, path)...)
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, long, "split these along their seams")
}

// TestLongFuncsFindsThem: the check above can fail.
func TestLongFuncsFindsThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.go")
	body := "package x\n\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines-1) + "}\n\nfunc short() {}\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	got := longFuncs(t, path)
	require.Len(t, got, 1)
	require.Contains(t, got[0], "long is 81 lines")
}

func longFuncs(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	require.NoError(t, err)
	if ast.IsGenerated(f) {
		return nil
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
			out = append(out, fmt.Sprintf("%s: %s is %d lines", path, fn.Name.Name, n))
		}
	}
	return out
}
