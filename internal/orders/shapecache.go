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
	"github.com/nutrab2b/b2bx/internal/jsonline"
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

// decodeShapeLine decodes a line as json.Unmarshal does, without its
// reflection when jsonline reads it (the pre-flight reads every line
// before each upload); the features are taken from intern (a few dozen
// distinct ones are repeated on every line), which it adds to.
func decodeShapeLine(b []byte, intern map[string]string) (shapeLine, bool) {
	var l shapeLine
	if jsonline.Fields(b, func(name []byte, v jsonline.Value) bool {
		switch string(name) {
		case "sha":
			var ok bool
			l.SHA, ok = v.String()
			return ok
		case "features":
			l.Features = []string{}
			return v.EachString(func(f []byte) {
				s, ok := intern[string(f)]
				if !ok {
					s = string(f)
					intern[s] = s
				}
				l.Features = append(l.Features, s)
			})
		}
		return false
	}) {
		return l, true
	}
	l = shapeLine{}
	return l, json.Unmarshal(b, &l) == nil
}

type shapeCache struct {
	path  string
	have  map[string][]string // SHA-256 → its features, each once
	lines int
	used  map[string]bool
	added []shapeLine
}

func openShapeCache(store *spool.Store, connectionID string) *shapeCache {
	c := &shapeCache{path: filepath.Join(filepath.Dir(store.SeenPath(connectionID)), shapeCacheName),
		have: map[string][]string{}, used: map[string]bool{}}
	f, err := os.Open(c.path)
	if err != nil {
		return c
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	intern := map[string]string{}
	for sc.Scan() {
		c.lines++
		l, ok := decodeShapeLine(sc.Bytes(), intern)
		if !ok || len(l.SHA) != 64 {
			continue
		}
		slices.Sort(l.Features)
		c.have[strings.ToLower(l.SHA)] = slices.Compact(l.Features)
	}
	return c
}

// get is the features of the payload sha, each once.
func (c *shapeCache) get(sha string) ([]string, bool) {
	fs, ok := c.have[sha]
	if ok {
		c.used[sha] = true
	}
	return fs, ok
}

// put keeps the shape of the payload sha and returns its features.
func (c *shapeCache) put(sha string, shape map[string]bool) []string {
	l := shapeLine{SHA: sha, Features: make([]string, 0, len(shape))}
	for f := range shape {
		l.Features = append(l.Features, f)
	}
	slices.Sort(l.Features)
	if len(sha) != 64 {
		return l.Features
	}
	c.have[sha], c.used[sha] = l.Features, true
	c.added = append(c.added, l)
	return l.Features
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
		b, _ := json.Marshal(shapeLine{SHA: sha, Features: c.have[sha]})
		buf.Write(append(b, '\n'))
	}
	tmp := c.path + ".tmp"
	if os.WriteFile(tmp, buf.Bytes(), 0o600) == nil {
		_ = os.Rename(tmp, c.path)
	}
}
