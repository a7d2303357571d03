package track

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A journal (the upload history, the seen journal) is one file that only
// grows, but what it says is many things: an upload attempt, the states
// of one delivery. The index keeps each of them as its own source, a part
// "<conn dir>/.parts/<journal>/<hash of its ID>" dated by a hash of its
// lines, and the file itself as a source without items whose size says
// where the last sync stopped reading. A journal that grew is read from
// there: the new lines, and the earlier lines of the things they are
// about. An upload then re-indexes the one attempt it appended to and
// reads its own lines, not the whole history (which grows with every
// upload the connection made).

// partsDir is the directory name (never on disk) of the journals' parts.
const partsDir = ".parts"

// tailIDsMax is how many things a journal's new lines may be about before
// the sync reads the whole journal instead of looking for each one's
// earlier lines.
const tailIDsMax = 64

// journal describes one kind of journal for syncJournal.
type journal[R any] struct {
	path   string
	id     func(r *R) string      // the thing a record is about
	needle func(id string) []byte // bytes each line about id contains
	items  func(recs []R) []Item  // the items of one thing's records
	conn   func(recs []R) string  // the connection the records name ("": unknown)
}

// partPath is the source path of the part id of journal.
func partPath(journalPath, id string) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	return filepath.Join(partsPrefix(journalPath), strconv.FormatUint(h.Sum64(), 16))
}

// partsPrefix is the path prefix of every part of a journal.
func partsPrefix(journalPath string) string {
	return filepath.Join(filepath.Dir(journalPath), partsDir, filepath.Base(journalPath)) + string(filepath.Separator)
}

// journalOf is the journal a part's source path belongs to (the path
// itself when it is not a part).
func journalOf(p string) string {
	sep := string(filepath.Separator)
	i := strings.LastIndex(p, sep+partsDir+sep)
	if i < 0 {
		return p
	}
	name, _, ok := strings.Cut(p[i+len(partsDir)+2:], sep)
	if !ok {
		return p
	}
	return p[:i] + sep + name
}

type line[R any] struct {
	raw []byte
	rec R
}

// parseLines decodes JSON lines; one that cannot be decoded (a torn last
// line, a damaged one) is skipped, as every reader of these files does.
func parseLines[R any](raw []byte, keep func(l []byte) bool) []line[R] {
	var out []line[R]
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 || keep != nil && !keep(l) {
			continue
		}
		var r R
		if json.Unmarshal(l, &r) == nil {
			out = append(out, line[R]{raw: l, rec: r})
		}
	}
	return out
}

// syncJournal indexes a journal whose file (src) changed since known.
// The connection the records name is put into *conn when it is empty.
func syncJournal[R any](ctx context.Context, x *Index, b *batcher, j journal[R], src Source, known map[string]Source, conn *string, st *Stats) error {
	raw, err := os.ReadFile(j.path)
	if err != nil {
		return fmt.Errorf("track: read %s: %w", j.path, err)
	}
	old, had := known[j.path]
	if had && old.Size > 0 && int64(len(raw)) > old.Size && raw[old.Size-1] == '\n' {
		visitParts(b, j.path, known) // the parts the new lines are not about stay
		if done, err := appendedJournal(ctx, b, j, src, raw, old.Size, conn, st); done || err != nil {
			return err
		}
	}
	lines := parseLines[R](raw, nil)
	if src.Conn == "" {
		src.Conn = j.conn(recsOf(lines))
	}
	if *conn == "" {
		*conn = src.Conn
	}
	if err := b.set(SourceItems{Source: src}); err != nil {
		return err
	}
	st.Read++
	parts, err := x.b.Sources(ctx, partsPrefix(j.path))
	if err != nil {
		return err
	}
	for p, s := range known { // a connection directory's sync has them already
		if journalOf(p) == j.path && p != j.path {
			parts[p] = s
		}
	}
	groups := groupLines(lines, j.id)
	cur := make(map[string]bool, len(groups))
	for _, g := range groups {
		sp := partPath(j.path, g.id)
		cur[sp] = true
		b.visit(sp)
		ps := g.source(sp, src.Conn)
		if o, ok := parts[sp]; ok && same(o, ps) {
			continue
		}
		if err := b.set(SourceItems{Source: ps, Items: j.items(recsOf(g.lines))}); err != nil {
			return err
		}
		st.Parts++
	}
	for sp := range parts {
		if !cur[sp] {
			b.forget(sp)
			b.visit(sp)
			st.Parts++
		}
	}
	return nil
}

// appendedJournal indexes the lines appended after off and, for each
// thing they are about, its earlier lines (found by j.needle, decoded and
// checked). done is false when the new lines are about too many things:
// the caller reads the whole journal.
func appendedJournal[R any](ctx context.Context, b *batcher, j journal[R], src Source, raw []byte, off int64, conn *string, st *Stats) (done bool, err error) {
	tail := parseLines[R](raw[off:], nil)
	groups := groupLines(tail, j.id)
	if len(groups) > tailIDsMax {
		return false, nil
	}
	if src.Conn == "" {
		src.Conn = j.conn(recsOf(tail))
	}
	if *conn == "" {
		*conn = src.Conn
	}
	if err := b.set(SourceItems{Source: src}); err != nil {
		return true, err
	}
	st.Read++
	prefix := raw[:off]
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		needle := j.needle(g.id)
		earlier := parseLines[R](prefix, func(l []byte) bool { return bytes.Contains(l, needle) })
		var all []line[R]
		for _, l := range earlier {
			if j.id(&l.rec) == g.id {
				all = append(all, l)
			}
		}
		all = append(all, g.lines...)
		full := jgroup[R]{id: g.id, lines: all}
		sp := partPath(j.path, g.id)
		b.visit(sp)
		if err := b.set(SourceItems{Source: full.source(sp, src.Conn), Items: j.items(recsOf(all))}); err != nil {
			return true, err
		}
		st.Parts++
	}
	return true, nil
}

type jgroup[R any] struct {
	id    string
	lines []line[R]
}

// groupLines groups lines by the thing they are about, in the order each
// first appears.
func groupLines[R any](lines []line[R], id func(r *R) string) []jgroup[R] {
	at := map[string]int{}
	var out []jgroup[R]
	for _, l := range lines {
		k := id(&l.rec)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, jgroup[R]{id: k})
		}
		out[i].lines = append(out[i].lines, l)
	}
	return out
}

// source is a part's source: minus its record count (not a file, see
// Counts) and a hash of its lines in order.
func (g jgroup[R]) source(path, conn string) Source {
	var sig uint64
	var buf [8]byte
	for _, l := range g.lines {
		h := fnv.New64a()
		binary.LittleEndian.PutUint64(buf[:], sig)
		h.Write(buf[:])
		h.Write(l.raw)
		sig = h.Sum64()
	}
	return Source{Path: path, Conn: conn, Size: -int64(len(g.lines)), MTime: int64(sig)}
}

func recsOf[R any](lines []line[R]) []R {
	out := make([]R, len(lines))
	for i, l := range lines {
		out[i] = l.rec
	}
	return out
}

// jsonField is the bytes a JSON line written by encoding/json holds for
// the string field name with value v.
func jsonField(name, v string) []byte {
	b, _ := json.Marshal(v)
	return append([]byte(`"`+name+`":`), b...)
}

// visitParts marks the known parts of an unchanged journal visited (a
// connection directory's sync forgets what it did not visit).
func visitParts(b *batcher, journalPath string, known map[string]Source) {
	for sp := range known {
		if sp != journalPath && journalOf(sp) == journalPath {
			b.visit(sp)
		}
	}
}

// forgetJournal forgets a journal that is gone, with its parts.
func (x *Index) forgetJournal(ctx context.Context, b *batcher, journalPath string, known map[string]Source, st *Stats) error {
	parts, err := x.b.Sources(ctx, partsPrefix(journalPath))
	if err != nil {
		return err
	}
	for sp := range known {
		if journalOf(sp) == journalPath && sp != journalPath {
			parts[sp] = known[sp]
		}
	}
	for sp := range parts {
		b.forget(sp)
		b.visit(sp)
		st.Parts++
	}
	return nil
}
