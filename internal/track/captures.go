package track

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// capturesPath lists the capture files the inspector read.
func (x *Index) capturesPath() string { return filepath.Join(filepath.Dir(x.path), "captures.jsonl") }

type captureLine struct {
	Path string    `json:"path"`
	At   time.Time `json:"at"`
}

// NoteCaptures records capture files or directories the inspector read
// and indexes their events. The list (not the database) remembers them,
// so a rebuild reads them again.
func (x *Index) NoteCaptures(ctx context.Context, paths []string) error {
	known := map[string]bool{}
	for _, p := range x.captures() {
		known[p] = true
	}
	var add []byte
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil || known[abs] {
			continue
		}
		known[abs] = true
		line, _ := json.Marshal(captureLine{Path: abs, At: x.opts.Now().UTC()})
		add = append(add, append(line, '\n')...)
	}
	if len(add) > 0 {
		f, err := os.OpenFile(x.capturesPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("track: note captures: %w", err)
		}
		_, err = f.Write(add)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("track: note captures: %w", err)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	known2, err := x.b.Sources(ctx, string(filepath.Separator))
	if err != nil {
		return err
	}
	b := &batcher{ctx: ctx, x: x}
	var st Stats
	if err := x.syncCaptures(ctx, b, known2, &st); err != nil {
		return err
	}
	return b.flush()
}

func (x *Index) captures() []string {
	raw, err := os.ReadFile(x.capturesPath())
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		var c captureLine
		if json.Unmarshal([]byte(l), &c) == nil && c.Path != "" {
			out = append(out, c.Path)
		}
	}
	sort.Strings(out)
	return out
}

// syncCaptures (re)reads the noted captures that changed. A directory's
// source is the directory (its modification time changes with its files).
func (x *Index) syncCaptures(ctx context.Context, b *batcher, known map[string]Source, st *Stats) error {
	for _, p := range x.captures() {
		fi, err := os.Stat(p)
		if err != nil {
			continue // gone: forgotten below (not visited)
		}
		src := Source{Path: p, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
		b.visit(p)
		if old, had := known[p]; had && same(old, src) {
			continue
		}
		items, err := eventItems(p)
		if err != nil {
			items = []Item{{Kind: KindEvent, Ref: filepath.Base(p), At: fi.ModTime().UTC(), State: "unreadable",
				Status: "the capture cannot be read", Note: err.Error()}}
		}
		if err := b.set(SourceItems{Source: src, Items: items}); err != nil {
			return err
		}
		st.Read++
	}
	for p := range known {
		if !b.visited[p] && !x.underRoots(p) {
			b.forget(p)
			st.Forgot++
		}
	}
	return nil
}
