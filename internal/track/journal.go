package track

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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
// A journal that only grew is read from where the last sync stopped
// (appendedJournal); otherwise it is read whole. The journal's own source
// is recorded after its parts, so a sync cut short leaves the old size:
// every thing with lines before a recorded size has its part.
func syncJournal[R any](ctx context.Context, x *Index, b *batcher, j journal[R], src Source, known map[string]Source, conn *string, st *Stats) error {
	old, had := known[j.path]
	if had && old.Size > 0 && src.Size > old.Size {
		visitParts(b, j.path, known) // the parts the new lines are not about stay
		if done, err := appendedJournal(ctx, x, b, j, src, old.Size, known, conn, st); done || err != nil {
			return err
		}
	}
	raw, err := os.ReadFile(j.path)
	if err != nil {
		return fmt.Errorf("track: read %s: %w", j.path, err)
	}
	journalBytesRead.Add(int64(len(raw)))
	lines := parseLines[R](raw, nil)
	if src.Conn == "" {
		src.Conn = j.conn(recsOf(lines))
	}
	if *conn == "" {
		*conn = src.Conn
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
	return b.set(SourceItems{Source: src})
}

// journalBytesRead counts the journal bytes the syncs read (tests: an
// upload reads the lines it appended, not the whole history).
var journalBytesRead atomic.Int64

// appendedJournal indexes the lines appended after off and, for each
// thing they are about, its earlier lines. A thing without a part has
// none (every thing with lines before off has its part: syncJournal), so
// a new attempt or delivery reads only the new lines; the earlier lines
// of the others are found by j.needle in one pass over the journal's
// start, in bounded memory. done is false when the journal must be read
// whole: the new lines are about too many things, it is not what the
// last sync saw (no newline just before off), or a line is too long.
func appendedJournal[R any](ctx context.Context, x *Index, b *batcher, j journal[R], src Source, off int64, known map[string]Source, conn *string, st *Stats) (done bool, err error) {
	f, err := os.Open(j.path)
	if err != nil {
		return true, fmt.Errorf("track: read %s: %w", j.path, err)
	}
	defer f.Close()
	raw := make([]byte, src.Size-off+1) // from the newline that ended the last sync's lines
	if n, err := f.ReadAt(raw, off-1); n < len(raw) || raw[0] != '\n' {
		if err != nil && !errors.Is(err, io.EOF) {
			return true, fmt.Errorf("track: read %s: %w", j.path, err)
		}
		return false, nil
	}
	journalBytesRead.Add(int64(len(raw)))
	tail := parseLines[R](raw[1:], nil)
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
	st.Read++
	var needles [][]byte // of the things that have earlier lines
	at := make([]int, len(groups))
	for i, g := range groups {
		at[i] = -1
		has, err := hasPart(ctx, x, known, partPath(j.path, g.id))
		if err != nil {
			return true, err
		}
		if has {
			at[i] = len(needles)
			needles = append(needles, j.needle(g.id))
		}
	}
	earlier, ok, err := linesWith[R](ctx, f, off, needles)
	if err != nil || !ok {
		return ok, err
	}
	for i, g := range groups {
		var all []line[R]
		if at[i] >= 0 {
			for _, l := range earlier[at[i]] {
				if j.id(&l.rec) == g.id {
					all = append(all, l)
				}
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
	return true, b.set(SourceItems{Source: src})
}

// hasPart reports whether the index holds the part sp (known holds the
// parts when a connection directory's sync read them).
func hasPart(ctx context.Context, x *Index, known map[string]Source, sp string) (bool, error) {
	if _, ok := known[sp]; ok {
		return true, nil
	}
	m, err := x.b.Sources(ctx, sp)
	if err != nil {
		return false, err
	}
	_, ok := m[sp]
	return ok, nil
}

// rawLines splits at '\n' and keeps the rest of a line as it is (a '\r'
// too: a part's signature hashes the bytes parseLines sees).
func rawLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// journalLineMax bounds one journal line read by linesWith.
const journalLineMax = 16 << 20

// linesWith reads the lines of the journal's first n bytes that contain
// needles[i], for each i (a line once per needle it contains), decoded,
// in one pass holding one line at a time. ok is false when a line is
// longer than journalLineMax (the caller reads the journal whole).
func linesWith[R any](ctx context.Context, f *os.File, n int64, needles [][]byte) (out [][]line[R], ok bool, err error) {
	if len(needles) == 0 {
		return nil, true, nil
	}
	out = make([][]line[R], len(needles))
	sc := bufio.NewScanner(io.NewSectionReader(f, 0, n))
	sc.Buffer(make([]byte, 64<<10), journalLineMax)
	sc.Split(rawLines)
	for k := 0; sc.Scan(); k++ {
		if k%4096 == 0 && ctx.Err() != nil {
			return nil, true, ctx.Err()
		}
		l := sc.Bytes()
		for i, nd := range needles {
			if bytes.Contains(l, nd) {
				out[i] = append(out[i], parseLines[R](bytes.Clone(l), nil)...)
			}
		}
	}
	journalBytesRead.Add(n)
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil, false, nil
	}
	if sc.Err() != nil {
		return nil, true, fmt.Errorf("track: read %s: %w", f.Name(), sc.Err())
	}
	return out, true, nil
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
