package tui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The owners of the screen stacks (the root, tui/*.go, and the tab,
// tui/conntab) never decide what to do by the kind of screen: a screen
// hands back a result message when it leaves (common.Resulter), and
// capabilities are common's interfaces (Inline, Exporter, ...). These
// tests read the source and fail on a type switch or assertion on a
// concrete screen type, or a call of a FromScreen adapter, in an owner.

const modPath = "github.com/nutrab2b/b2bx/"

// screenTypes are the concrete types under tui/ that are screens or the
// models behind them: a named non-interface type with the Screen
// interface's Update, Closes and Title methods. Keyed by import path +
// "." + name.
func screenTypes(t *testing.T) map[string]bool {
	t.Helper()
	methods := map[string]map[string]bool{} // type → method names
	interfaces := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		pkg := modPath + "tui"
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg += "/" + dir
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						if _, iface := ts.Type.(*ast.InterfaceType); iface {
							interfaces[pkg+"."+ts.Name.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) == 0 {
					continue
				}
				name := recvName(d.Recv.List[0].Type)
				if name == "" {
					continue
				}
				k := pkg + "." + name
				if methods[k] == nil {
					methods[k] = map[string]bool{}
				}
				methods[k][d.Name.Name] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	out := map[string]bool{}
	for k, ms := range methods {
		if !interfaces[k] && ms["Update"] && ms["Closes"] && ms["Title"] {
			out[k] = true
		}
	}
	return out
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvName(x.X)
	}
	return ""
}

// screenTests lists the type tests on screen types in one file's source
// (pkg is the file's import path); a screen's own methods may test its
// own type.
func screenTests(pkg, name string, src []byte, screens map[string]bool) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		imports[local] = p
	}
	resolve := func(e ast.Expr) string {
		for {
			s, ok := e.(*ast.StarExpr)
			if !ok {
				break
			}
			e = s.X
		}
		switch x := e.(type) {
		case *ast.Ident:
			return pkg + "." + x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return imports[id.Name] + "." + x.Sel.Name
			}
		}
		return ""
	}
	var found []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		own := ""
		if fn.Recv != nil && len(fn.Recv.List) > 0 {
			own = pkg + "." + recvName(fn.Recv.List[0].Type)
		}
		report := func(n ast.Node, what string) {
			found = append(found, fmt.Sprintf("%s: %s in %s", fset.Position(n.Pos()), what, fn.Name.Name))
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeAssertExpr:
				if x.Type != nil {
					if k := resolve(x.Type); screens[k] && k != own {
						report(x, "assertion to "+k)
					}
				}
			case *ast.TypeSwitchStmt:
				for _, c := range x.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if k := resolve(e); screens[k] && k != own {
							report(e, "type switch case "+k)
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "FromScreen" {
					report(x, "FromScreen")
				}
			}
			return true
		})
	}
	return found, nil
}

// TestOwnersNeverTestScreenTypes: the root and the tab act on the
// messages their stacks hand back, never on what kind of screen left.
func TestOwnersNeverTestScreenTypes(t *testing.T) {
	screens := screenTypes(t)
	for _, k := range []string{"tui/find.Results", "tui/find.Timeline", "tui/common.Prompt", "tui/conntab.answersScreen", "tui/fix.Model", "tui/upload.Model"} {
		require.True(t, screens[modPath+k], "%s is known as a screen type (found %d)", k, len(screens))
	}
	var found []string
	for dir, pkg := range map[string]string{".": modPath + "tui", "conntab": modPath + "tui/conntab"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			require.NoError(t, err)
			got, err := screenTests(pkg, name, src, screens)
			require.NoError(t, err)
			found = append(found, got...)
		}
	}
	sort.Strings(found)
	require.Empty(t, found, "an owner tests a screen's type; hand a result back instead (common.Resulter)")
}

// TestScreenTypeCheckFindsViolations: the check above can fail: the type
// tests the owners used to make are found.
func TestScreenTypeCheckFindsViolations(t *testing.T) {
	screens := screenTypes(t)
	src := `package tui

import (
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/find"
	"github.com/nutrab2b/b2bx/tui/upload"
)

func (m Model) popFind() {
	switch m.screens.Top().(type) {
	case *find.Results, *find.Timeline:
	}
}

func (m Model) answer(s common.Screen) bool {
	_, ok := s.(common.Prompt)
	_, up := upload.FromScreen(s)
	_, inline := s.(common.Inline) // a capability: allowed
	return ok || up || inline
}
`
	got, err := screenTests(modPath+"tui", "violations.go", []byte(src), screens)
	require.NoError(t, err)
	require.Len(t, got, 4, "%q", got)
	require.Contains(t, got[0], "type switch case "+modPath+"tui/find.Results")
	require.Contains(t, got[2], "assertion to "+modPath+"tui/common.Prompt")
	require.Contains(t, got[3], "FromScreen")
}
