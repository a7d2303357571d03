package track

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/buildinfo"
	"github.com/nutrab2b/b2bx/internal/orders"
)

// The verdict cache. Before every upload the pre-flight asks what the
// partner said of the connection's newest accepted payloads
// (orders.LoadHistoryWith, up to orders.MaxHistory of them): reading the
// conversations of 200 uploads from the index and linking them is most of
// an upload's own work, although between two uploads almost none of them
// changed. So the index keeps each payload's verdict with the
// conversations it was read from (its uploads' KeyConv values), and the
// marks of the index it was computed at: the highest item id (items are
// never updated and their ids never reused, so every item added since has
// a higher one) and the highest entry of track_gone, where SQLite logs the
// conversations of every item removed (a replaced delivery or upload is
// one removed and one added). A kept verdict is used again only when no
// item added or removed since belongs to one of its conversations and no
// upload of its bytes was added, and only by the binary that computed it
// (buildinfo.ID: another b2bx may link differently). Everything else is
// computed as before (VerdictsOf over LinkedFor) and kept for next time.
// A connection's cache is one file next to the database
// (.index/verdicts/<connection>.bin: marks and verdicts, with the features
// of each payload's bytes, and a CRC-32), tied to this index by its epoch
// (track_meta; a new database or a Reset has another); a file that cannot
// be read or written only means the verdicts are computed again.
//
// An answer links only within the conversation its reference names,
// which is one of the conversations of every upload it may answer, so a
// payload's verdict depends on nothing outside its conversations: the
// property test of this file checks that, after every step of random
// histories, the kept verdicts equal fresh ones.

// verdictMarks is where a connection's cache was computed.
type verdictMarks struct {
	Rule string // buildinfo.ID of the b2bx that computed the verdicts
	Item int64  // the highest item id then
	Gone int64  // the highest track_gone entry then
}

// keptVerdict is one payload's entry: the verdict with the features of its
// bytes, and the conversations of its uploads.
type keptVerdict struct {
	orders.Verdict
	Convs []string
}

// verdictVersion starts a connection's cache value: one row to read and
// one to write. It holds the marks (rule, item, gone), the features of
// every payload once (a dictionary: a few dozen, repeated by every
// payload), and the verdicts: each payload's SHA-256 (32 bytes when it is
// hex, else its text), a flag byte (1 rejected, 2 a CONTRL, 4 features
// known), its conversations and, when known, its features as numbers in
// the dictionary. Lists are a count and their items, strings a length
// and their bytes (uvarints): no value can be mistaken for a separator.
const verdictVersion = 2

// SHA-256 forms in a cache value.
const (
	shaText = 0
	shaRaw  = 1
)

func encodeCache(m verdictMarks, rows map[string]keptVerdict) []byte {
	dict := map[string]int{}
	var words []string
	size := 64 + len(m.Rule) // an upper bound: one allocation
	for h, v := range rows {
		size += 4*binary.MaxVarintLen64 + len(h) + 2
		for _, c := range v.Convs {
			size += binary.MaxVarintLen64 + len(c)
		}
		for _, f := range v.Features {
			size += binary.MaxVarintLen64
			if _, ok := dict[f]; !ok {
				dict[f] = len(words)
				words = append(words, f)
				size += binary.MaxVarintLen64 + len(f)
			}
		}
	}
	b := make([]byte, 1, size)
	b[0] = verdictVersion
	b = appendList(b, []string{m.Rule})
	b = binary.AppendUvarint(b, uint64(m.Item))
	b = binary.AppendUvarint(b, uint64(m.Gone))
	b = appendList(b, words)
	b = binary.AppendUvarint(b, uint64(len(rows)))
	for h, v := range rows {
		if raw, err := hex.DecodeString(h); err == nil && len(raw) == sha256.Size && hex.EncodeToString(raw) == h {
			b = append(append(b, shaRaw), raw...)
		} else {
			b = appendList(append(b, shaText), []string{h})
		}
		var flags byte
		if v.Rejected {
			flags |= 1
		}
		if v.Contrl {
			flags |= 2
		}
		if v.Features != nil {
			flags |= 4
		}
		b = appendList(append(b, flags), v.Convs)
		if v.Features != nil {
			b = binary.AppendUvarint(b, uint64(len(v.Features)))
			for _, f := range v.Features {
				b = binary.AppendUvarint(b, uint64(dict[f]))
			}
		}
	}
	return b
}

func appendList(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// decodeCache reads what encodeCache wrote; false for anything else. Its
// strings are views of b, not copies (read before every upload, 200
// verdicts were a thousand allocations): b must not change while they
// are used, as the row read for it does not.
func decodeCache(b []byte) (verdictMarks, map[string]keptVerdict, bool) {
	var m verdictMarks
	if len(b) == 0 || b[0] != verdictVersion {
		return m, nil, false
	}
	var rule, words []string
	b, ok := readList(b[1:], &rule)
	if !ok || len(rule) != 1 {
		return m, nil, false
	}
	m.Rule = rule[0]
	var nums [2]uint64
	for i := range nums {
		if nums[i], b, ok = readUvarint(b); !ok {
			return m, nil, false
		}
	}
	m.Item, m.Gone = int64(nums[0]), int64(nums[1])
	if b, ok = readList(b, &words); !ok {
		return m, nil, false
	}
	n, b, ok := readUvarint(b)
	if !ok || n > uint64(len(b)) {
		return m, nil, false
	}
	rows := make(map[string]keptVerdict, n)
	for range n {
		var h string
		if h, b, ok = readSHA(b); !ok || len(b) == 0 || b[0]&^7 != 0 {
			return m, nil, false
		}
		flags := b[0]
		v := keptVerdict{Verdict: orders.Verdict{Rejected: flags&1 != 0, Contrl: flags&2 != 0}}
		if b, ok = readList(b[1:], &v.Convs); !ok {
			return m, nil, false
		}
		if flags&4 != 0 {
			var nf uint64
			if nf, b, ok = readUvarint(b); !ok || nf > uint64(len(b)) {
				return m, nil, false
			}
			v.Features = make([]string, 0, nf)
			for range nf {
				var w uint64
				if w, b, ok = readUvarint(b); !ok || w >= uint64(len(words)) {
					return m, nil, false
				}
				v.Features = append(v.Features, words[w])
			}
		}
		rows[h] = v
	}
	return m, rows, len(b) == 0
}

func readUvarint(b []byte) (uint64, []byte, bool) {
	v, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, nil, false
	}
	return v, b[k:], true
}

// readSHA reads a payload's SHA-256 as encodeCache wrote it: lower-case
// hex either way.
func readSHA(b []byte) (string, []byte, bool) {
	if len(b) == 0 {
		return "", nil, false
	}
	switch b[0] {
	case shaRaw:
		if len(b) < 1+sha256.Size {
			return "", nil, false
		}
		return hex.EncodeToString(b[1 : 1+sha256.Size]), b[1+sha256.Size:], true
	case shaText:
		var h []string
		rest, ok := readList(b[1:], &h)
		if !ok || len(h) != 1 {
			return "", nil, false
		}
		return h[0], rest, true
	}
	return "", nil, false
}

func readList(b []byte, into *[]string) ([]byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, false
	}
	b = b[k:]
	out := make([]string, 0, n)
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, false
		}
		sb := b[k : k+int(l)]
		b = b[k+int(l):]
		out = append(out, unsafe.String(unsafe.SliceData(sb), len(sb))) // a view of b: see decodeCache
	}
	*into = out
	return b, true
}

// verdictStats counts, for tests, the verdicts Verdicts answered from
// the cache and computed.
var verdictStats struct{ kept, computed int }

// Verdicts answers orders.VerdictLoader's question for connection conn
// from this index: kept verdicts where nothing they depend on changed,
// fresh ones (VerdictsOf over LinkedFor, features from features) for the
// rest, which are kept for the next run. Sync conn first. A team store's
// index and an index that cannot be written compute every verdict.
func (x *Index) Verdicts(ctx context.Context, store *spool.Store, conn string, sel orders.Selection, features orders.FeaturesFunc) (map[string]orders.Verdict, error) {
	shas := make([]string, 0, len(sel.SHAs))
	for _, h := range sel.SHAs {
		if h != "" {
			shas = append(shas, strings.ToLower(h))
		}
	}
	sel.SHAs = shas
	withFeatures := func(h string, v orders.Verdict) orders.Verdict {
		if v.Counts() && features != nil {
			v.Features, _ = features(h)
		}
		return v
	}
	sq, ok := x.raw.(*SQLite)
	rule := buildinfo.ID()
	if !ok || x.team || x.fallback != "" || rule == "" {
		l, err := x.LinkedFor(ctx, store, conn, &sel)
		if err != nil {
			return nil, err
		}
		out := orders.VerdictsOf(l, shas)
		for h, v := range out {
			out[h] = withFeatures(h, v)
		}
		return out, nil
	}
	now, err := x.verdictNow(ctx, sq, conn, rule)
	if err != nil {
		return nil, err
	}
	kept, err := sq.keptVerdicts(ctx, conn, now)
	if err != nil {
		return nil, err
	}
	out := make(map[string]orders.Verdict, len(shas))
	fresh := map[string]keptVerdict{} // to keep
	var missing []string
	for _, h := range shas {
		if v, ok := kept[h]; ok {
			out[h] = v.Verdict
			verdictStats.kept++
		} else {
			missing = append(missing, h)
		}
	}
	if len(missing) > 0 {
		vs, err := x.freshVerdicts(ctx, store, conn, orders.Selection{SHAs: missing, Since: sel.Since})
		if err != nil {
			return nil, err
		}
		for _, h := range missing {
			v := vs[h]
			v.Verdict = withFeatures(h, v.Verdict)
			out[h] = v.Verdict
			verdictStats.computed++
			if v.Convs != nil { // nil: read from the store's history, which the marks do not follow
				fresh[h] = v
			}
		}
	}
	if len(fresh) > 0 || len(kept) != len(now.rows) || now.marks != now.was {
		next := make(map[string]keptVerdict, len(shas)) // the payloads asked about, each kept or fresh
		for _, h := range shas {
			if v, ok := fresh[h]; ok {
				next[h] = v
			} else if v, ok := kept[h]; ok {
				next[h] = v
			}
		}
		x.keepVerdicts(ctx, sq, conn, now.epoch, encodeCache(now.marks, next)) // best effort: a cache that cannot be written is computed again
	}
	return out, ctx.Err()
}

// freshVerdicts computes the verdicts of the payloads sel names, each
// with the conversations of its uploads (nil Convs: the uploads were read
// from the store's history, not from items; such a verdict is not kept).
func (x *Index) freshVerdicts(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (map[string]keptVerdict, error) {
	l, picked, fromItems, err := x.selected(ctx, store, conn, sel)
	if err != nil {
		return nil, err
	}
	vs := orders.VerdictsOf(l, sel.SHAs)
	out := make(map[string]keptVerdict, len(sel.SHAs))
	seen := map[string]bool{}
	for _, h := range sel.SHAs {
		out[h] = keptVerdict{Verdict: vs[h]}
		if fromItems {
			out[h] = keptVerdict{Verdict: vs[h], Convs: []string{}}
		}
	}
	for i := range picked {
		d, _ := picked[i].upload()
		h := strings.ToLower(d.SHA256)
		v, ok := out[h]
		if !ok || !fromItems {
			continue
		}
		for _, k := range picked[i].Keys {
			if k.Kind == KeyConv && !seen[h+"\x00"+k.Value] {
				seen[h+"\x00"+k.Value] = true
				v.Convs = append(v.Convs, k.Value)
			}
		}
		out[h] = v
	}
	return out, nil
}

// verdictState is where the index stands for a connection's cache: the
// index's epoch, the marks now (the highest item id and track_gone entry
// ever given, from sqlite_sequence: never lower after a removal), the
// lowest track_gone entry kept, the marks the cache was computed at, and
// its verdicts.
type verdictState struct {
	epoch      string
	marks, was verdictMarks
	floor      int64
	rows       map[string]keptVerdict // SHA-256 → its verdict
}

// verdictNow reads where the index stands and conn's cache (none when it
// cannot be read, is of another index or not this b2bx's).
func (x *Index) verdictNow(ctx context.Context, s *SQLite, conn, rule string) (verdictState, error) {
	st := verdictState{marks: verdictMarks{Rule: rule}}
	err := s.queryRow(ctx, `SELECT
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'track_items'), 0),
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'track_gone'), 0),
		COALESCE((SELECT MIN(seq) FROM track_gone), 0),
		COALESCE((SELECT value FROM track_meta WHERE name = ?), '')`, metaEpoch).Scan(&st.marks.Item, &st.marks.Gone, &st.floor, &st.epoch)
	if err != nil {
		return st, classify(err)
	}
	if st.epoch == "" {
		return st, nil
	}
	if data, ok := readVerdictFile(x.verdictPath(conn), st.epoch); ok {
		if was, rows, ok := decodeCache(data); ok {
			st.was, st.rows = was, rows
		}
	}
	return st, nil
}

// verdictPath is the file of conn's cache.
func (x *Index) verdictPath(conn string) string {
	return filepath.Join(filepath.Dir(x.path), "verdicts", spool.SafeName(conn)+".bin")
}

// verdictMagic starts a cache file, then the index's epoch (a length and
// its bytes), the cache value (encodeCache) and a CRC-32 of all that.
const verdictMagic = "b2bx-verdicts\n"

// readVerdictFile is the cache value of the file at path when it is
// whole (its CRC-32 holds: two writers at once or a crash leave one that
// does not) and of the index of epoch.
func readVerdictFile(path, epoch string) ([]byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < len(verdictMagic)+4 || string(b[:len(verdictMagic)]) != verdictMagic {
		return nil, false
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, false
	}
	var e []string
	rest, ok := readList(body[len(verdictMagic):], &e)
	if !ok || len(e) != 1 || e[0] != epoch {
		return nil, false
	}
	return rest, true
}

// keptVerdicts are the verdicts of conn's cache that still hold now (none
// when the cache is another binary's, of another index, or the log of
// removals no longer reaches back to it).
func (s *SQLite) keptVerdicts(ctx context.Context, conn string, now verdictState) (map[string]keptVerdict, error) {
	c := now.was
	if len(now.rows) == 0 || c.Rule != now.marks.Rule || c.Item > now.marks.Item || c.Gone > now.marks.Gone || now.floor > c.Gone+1 {
		return nil, nil
	}
	changed := map[string]bool{}
	bytes := map[string]bool{} // SHA-256 of the uploads added
	rows, err := s.query(ctx, `SELECT kind, convs, detail FROM track_items WHERE id > ? AND conn = ?`, c.Item, conn)
	if err != nil {
		return nil, classify(err)
	}
	for rows.Next() {
		var kind, convs, detail string
		if err := rows.Scan(&kind, &convs, &detail); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		addChanged(changed, convs)
		if Kind(kind) == KindUpload {
			it := Item{Kind: KindUpload, Detail: detail}
			if d, ok := it.upload(); ok {
				bytes[strings.ToLower(d.SHA256)] = true
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	rows, err = s.query(ctx, `SELECT convs FROM track_gone WHERE seq > ? AND conn = ?`, c.Gone, conn)
	if err != nil {
		return nil, classify(err)
	}
	for rows.Next() {
		var convs string
		if err := rows.Scan(&convs); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		addChanged(changed, convs)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	out := make(map[string]keptVerdict, len(now.rows))
next:
	for h, v := range now.rows {
		if bytes[h] {
			continue
		}
		for _, cv := range v.Convs {
			if changed[cv] {
				continue next
			}
		}
		out[h] = v
	}
	return out, nil
}

// addChanged adds the conversations of an item's convs column.
func addChanged(changed map[string]bool, convs string) {
	var cs []string
	_ = json.Unmarshal([]byte(convs), &cs)
	for _, c := range cs {
		changed[c] = true
	}
}

// keepVerdicts writes conn's cache file, unless it cannot be written;
// an index without an epoch yet (one made before this b2bx kept
// verdicts) is given one first.
func (x *Index) keepVerdicts(ctx context.Context, s *SQLite, conn, epoch string, data []byte) {
	if epoch == "" {
		epoch = newEpoch()
		if s.SetMeta(ctx, metaEpoch, epoch) != nil {
			return
		}
	}
	path := x.verdictPath(conn)
	b := make([]byte, 0, len(verdictMagic)+binary.MaxVarintLen64+len(epoch)+len(data)+4)
	b = appendList(append(b, verdictMagic...), []string{epoch})
	b = append(b, data...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	// written in place, without a rename (which costs more than the
	// write here): a reader of a file half written, or written by two
	// processes at once, finds its CRC-32 wrong and computes again
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
			return
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	}
	if err != nil {
		return
	}
	_, _ = f.Write(b)
	_ = f.Close()
}

// newEpoch names one index's life (see metaEpoch).
func newEpoch() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
