package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// zipTree gives access to the files of the D.96A directory zip, including
// the files inside its nested zips (TRSD.ZIP, UNCL.ZIP, TRMD.ZIP...), by
// base name. The archive is read from memory: it is about 1 MB.
type zipTree struct {
	files map[string][]byte // upper-case base name -> content
}

// openZipTree reads the outer zip and every nested zip one level deep.
func openZipTree(data []byte) (*zipTree, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("open directory zip: %w", err)
	}
	t := &zipTree{files: map[string][]byte{}}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		b, err := readZipFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.ToUpper(path.Base(f.Name))
		if !strings.HasSuffix(name, ".ZIP") {
			t.files[name] = b
			continue
		}
		inner, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return nil, fmt.Errorf("open nested zip %s: %w", f.Name, err)
		}
		for _, g := range inner.File {
			if g.FileInfo().IsDir() {
				continue
			}
			gb, err := readZipFile(g)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			t.files[strings.ToUpper(path.Base(g.Name))] = gb
		}
	}
	return t, nil
}

func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name, err)
	}
	return b, nil
}

// text returns the named file decoded from CP437.
func (t *zipTree) text(name string) (string, error) {
	b, ok := t.files[strings.ToUpper(name)]
	if !ok {
		return "", fmt.Errorf("%s not found in the D.96A zip", name)
	}
	return decodeCP437(b), nil
}

// names returns the upper-case base names of all files, sorted.
func (t *zipTree) names() []string {
	out := make([]string, 0, len(t.files))
	for n := range t.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
