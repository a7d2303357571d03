// Package codesize measures hand-written Go source for the size rules of
// issue 20 §5: no hand-written file over MaxFileLines lines, no function
// over MaxFuncLines lines in tui/ and internal/track/. Generated files
// (the "Code generated … DO NOT EDIT." header) are left out.
package codesize

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The limits.
const (
	MaxFileLines = 600
	MaxFuncLines = 80
)

// Files are the Go files under root, skipping hidden directories
// (.git) and testdata; tests says whether _test.go files count.
func Files(root string, tests bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && (tests || !strings.HasSuffix(path, "_test.go")) {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// LongFuncs are the functions of the hand-written file path longer than
// max lines, as "path: name is N lines".
func LongFuncs(path string, max int) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > max {
			out = append(out, fmt.Sprintf("%s: %s is %d lines", path, fn.Name.Name, n))
		}
	}
	return out, nil
}

// LongFile says "path is N lines" when the hand-written file path is
// longer than max lines; "" otherwise.
func LongFile(path string, max int) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, b, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	if ast.IsGenerated(f) {
		return "", nil
	}
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	if n > max {
		return fmt.Sprintf("%s is %d lines", path, n), nil
	}
	return "", nil
}

// LongFuncsIn are LongFuncs over every Go file under dir (tests says
// whether _test.go files count).
func LongFuncsIn(dir string, tests bool, max int) ([]string, error) {
	files, err := Files(dir, tests)
	if err != nil {
		return nil, err
	}
	var long []string
	for _, f := range files {
		got, err := LongFuncs(f, max)
		if err != nil {
			return nil, err
		}
		long = append(long, got...)
	}
	return long, nil
}
