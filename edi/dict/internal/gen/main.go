// Command gen generates the EDIFACT dictionary tables of package dict from
// the directory sources in ../shared/edifact-directory: the official D.96A
// zip (text directories in CP437), the D.24A XML and the service segment
// XML for syntax versions 3 and 4, plus hand-written service composites and
// CONTRL structures (service.go).
//
// Usage (normally through go generate in edi/dict):
//
//	go run ./edi/dict/internal/gen [-src DIR] [-out DIR]
//
// -src defaults to $B2BX_EDIFACT_DIR, else to shared/edifact-directory next
// to the repository; -out defaults to edi/dict of the repository.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	src := flag.String("src", "", "directory with unece-d96a/ and pydifact-d24a/ (default $B2BX_EDIFACT_DIR or ../shared/edifact-directory beside the repository)")
	out := flag.String("out", "", "output directory for the *_gen.go files (default edi/dict of the repository)")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	root, err := moduleRoot()
	if err != nil && (src == "" || out == "") {
		return err
	}
	if src == "" {
		src = os.Getenv("B2BX_EDIFACT_DIR")
	}
	if src == "" {
		src = filepath.Join(root, "..", "shared", "edifact-directory")
	}
	if out == "" {
		out = filepath.Join(root, "edi", "dict")
	}
	if _, err := os.Stat(filepath.Join(src, "unece-d96a", "d96a.zip")); err != nil {
		return fmt.Errorf("EDIFACT directory sources not found in %s (set -src or B2BX_EDIFACT_DIR): %w", src, err)
	}
	files, err := generate(src)
	if err != nil {
		return err
	}
	return writeFiles(out, files)
}

// writeFiles writes the generated files into dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// moduleRoot finds the directory holding go.mod, from the working
// directory upwards, so that the defaults work from the repository root
// (go run) and from edi/dict (go generate) alike.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory; pass -src and -out")
		}
		dir = parent
	}
}
