package orders

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// The shape cache keeps the shape of each payload LoadHistory parsed, by
// SHA-256, in the connection's store directory (shapes.jsonl): a payload's
// shape never changes, so the pre-flight parses each sent file once, not
// once per upload. It is derived data: a line that cannot be read is
// skipped (the file is parsed again), a cache that cannot be written is
// not used, and nothing is fsynced.
const shapeCacheName = "shapes.jsonl"

// shapeCacheMax is how many lines the file may hold before it is written
// anew with only the shapes still asked for.
const shapeCacheMax = 4 * MaxHistory

type shapeLine struct {
	SHA      string   `json:"sha"`
	Features []string `json:"features"`
}

type shapeCache struct {
	path  string
	have  map[string]map[string]bool
	lines int
	used  map[string]bool
	added []shapeLine
}

func openShapeCache(store *spool.Store, connectionID string) *shapeCache {
	c := &shapeCache{path: filepath.Join(filepath.Dir(store.SeenPath(connectionID)), shapeCacheName),
		have: map[string]map[string]bool{}, used: map[string]bool{}}
	f, err := os.Open(c.path)
	if err != nil {
		return c
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		c.lines++
		var l shapeLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || len(l.SHA) != 64 {
			continue
		}
		m := make(map[string]bool, len(l.Features))
		for _, f := range l.Features {
			m[f] = true
		}
		c.have[strings.ToLower(l.SHA)] = m
	}
	return c
}

func (c *shapeCache) get(sha string) (map[string]bool, bool) {
	m, ok := c.have[sha]
	if ok {
		c.used[sha] = true
	}
	return m, ok
}

func (c *shapeCache) put(sha string, shape map[string]bool) {
	if len(sha) != 64 {
		return
	}
	l := shapeLine{SHA: sha, Features: make([]string, 0, len(shape))}
	for f := range shape {
		l.Features = append(l.Features, f)
	}
	slices.Sort(l.Features)
	c.have[sha], c.used[sha] = shape, true
	c.added = append(c.added, l)
}

// close writes what was added: appended, or, when the file has grown past
// shapeCacheMax lines, the file anew with the shapes used this time.
func (c *shapeCache) close() {
	if len(c.added) == 0 {
		return
	}
	if c.lines+len(c.added) <= shapeCacheMax {
		var buf bytes.Buffer
		for _, l := range c.added {
			b, _ := json.Marshal(l)
			buf.Write(append(b, '\n'))
		}
		f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return
		}
		_, _ = f.Write(buf.Bytes()) // one write: concurrent appenders do not interleave lines
		_ = f.Close()
		return
	}
	var buf bytes.Buffer
	for sha := range c.used {
		l := shapeLine{SHA: sha}
		for f := range c.have[sha] {
			l.Features = append(l.Features, f)
		}
		slices.Sort(l.Features)
		b, _ := json.Marshal(l)
		buf.Write(append(b, '\n'))
	}
	tmp := c.path + ".tmp"
	if os.WriteFile(tmp, buf.Bytes(), 0o600) == nil {
		_ = os.Rename(tmp, c.path)
	}
}
