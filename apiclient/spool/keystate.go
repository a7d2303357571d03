package spool

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// The key state is what key plans need from a connection's upload history,
// kept next to it in <conn>/keyplan/ so one upload does not parse the whole
// history (issue 23 §1): the history's lines grouped by sender and
// business id into keyShards files, and the meta file saying how far the
// history is folded (Offset, just after a newline) with the bytes before
// that offset (Tail: the last folded line) to recognise the same file.
// A shard holds one line per history line, "OFFSET PLAN RECORD", PLAN
// the hash of its sender and business id: a fold appends to the shards
// (the CRC-32 in the meta file is updated, not recomputed), and a plan's
// records are decoded from the lines of its hash only, so neither grows
// with the rest of the shard. It is a cache: read and
// written only under the connection lock, brought up to date by folding
// the lines appended since (by this or another process), checked by the
// CRC-32 of each shard, and rebuilt from
// a full parse when it does not match the history (missing, shorter,
// other bytes before the offset, another version). A torn last line is
// not folded (the offset stays before it); a corrupt complete line fails
// as in Uploads.
const (
	keyStateDir     = "keyplan"
	keyStateVersion = 3 // 3: meta.bin; 2: shards of lines, appended; 1: a JSON array, rewritten
	keyShards       = 256
	keyTailLen      = 4096
)

type keyMeta struct {
	Version int    `json:"version"`
	Offset  int64  `json:"offset"`
	Tail    []byte `json:"tail"`
	// Shards is the CRC-32 of each shard file written: a shard that does
	// not match (a crash between writing it and the meta file, a lost write)
	// makes the state rebuilt, so nothing here needs an fsync.
	Shards map[int]uint32 `json:"shards"`
}

// keyEntry is one history line in a shard: Off is its offset in the
// history, which makes a fold that crashed before the meta file was written
// harmless (entries at or after the offset are dropped and folded again).
type keyEntry struct {
	Off int64        `json:"o"`
	Rec UploadRecord `json:"r"`
}

var errKeyStateDamaged = errors.New("spool: key state damaged")

// historyLinesDecoded counts the upload history lines decoded by a full
// parse or the key state (tests: an unchanged history is not parsed again).
var historyLinesDecoded atomic.Int64

func planKey(sender, business string) string { return sender + "\x00" + business }

func shardOf(sender, business string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(planKey(sender, business)))
	return int(h.Sum32() % keyShards)
}

// planHash tags a plan's lines in its shard (a shard line of another
// hash is not decoded; one of the same is still compared in full).
func planHash(sender, business string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(planKey(sender, business)))
	return h.Sum64()
}

func (s *Store) keyDir(conn string) string { return filepath.Join(s.connDir(conn), keyStateDir) }

func shardName(i int) string { return fmt.Sprintf("%02x.json", i) }

// keyRecords returns the local history's records of one sender and
// business id in append order: what Decide reads for them. Call it under
// the connection lock.
func (s *Store) keyRecords(conn, sender, business string) ([]UploadRecord, error) {
	hf, err := os.Open(s.historyPath(conn))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: read upload history: %w", err)
	}
	defer hf.Close()
	fi, err := hf.Stat()
	if err != nil {
		return nil, fmt.Errorf("spool: read upload history: %w", err)
	}
	dir := s.keyDir(conn)
	m, ok := readKeyMeta(dir)
	if ok {
		ok, err = tailMatches(hf, m, fi.Size())
		if err != nil {
			return nil, err
		}
	}
	if !ok {
		if m, err = s.rebuildKeyState(hf, dir); err != nil {
			return nil, err
		}
	} else if m.Offset < fi.Size() {
		m, err = foldTail(hf, dir, m, fi.Size())
		if errors.Is(err, errKeyStateDamaged) {
			m, err = s.rebuildKeyState(hf, dir)
		}
		if err != nil {
			return nil, err
		}
	}
	ents, err := readShardPlan(dir, m, shardOf(sender, business), planHash(sender, business))
	if errors.Is(err, errKeyStateDamaged) { // a cache: build it again
		if m, err = s.rebuildKeyState(hf, dir); err != nil {
			return nil, err
		}
		ents, err = readShardPlan(dir, m, shardOf(sender, business), planHash(sender, business))
	}
	if err != nil {
		return nil, err
	}
	var out []UploadRecord
	for _, e := range ents {
		if e.Off < m.Offset && e.Rec.SenderID == sender && e.Rec.BusinessID == business {
			out = append(out, e.Rec)
		}
	}
	return out, nil
}

// keyMetaName is the state's meta file: the version, the offset, the
// tail and each shard's number and CRC-32, as uvarints (a length before
// the tail's bytes), then a CRC-32 of all that; read and written before
// every upload, where JSON of 256 shards cost more than the fold.
const keyMetaName = "meta.bin"

func readKeyMeta(dir string) (keyMeta, bool) {
	b, err := os.ReadFile(filepath.Join(dir, keyMetaName))
	if err != nil || len(b) < 4 {
		return keyMeta{}, false
	}
	body := b[:len(b)-4]
	if binary.LittleEndian.Uint32(b[len(b)-4:]) != crc32.ChecksumIEEE(body) {
		return keyMeta{}, false
	}
	next := func() (uint64, bool) {
		v, k := binary.Uvarint(body)
		if k <= 0 {
			return 0, false
		}
		body = body[k:]
		return v, true
	}
	version, ok1 := next()
	offset, ok2 := next()
	tail, ok3 := next()
	if !ok1 || !ok2 || !ok3 || version != keyStateVersion || offset > math.MaxInt64 || tail > uint64(len(body)) || tail > offset {
		return keyMeta{}, false
	}
	m := keyMeta{Version: keyStateVersion, Offset: int64(offset), Tail: body[:tail]}
	body = body[tail:]
	n, ok := next()
	if !ok || n > keyShards {
		return keyMeta{}, false
	}
	m.Shards = make(map[int]uint32, n)
	for range n {
		i, ok1 := next()
		sum, ok2 := next()
		if !ok1 || !ok2 || i >= keyShards || sum > math.MaxUint32 {
			return keyMeta{}, false
		}
		m.Shards[int(i)] = uint32(sum)
	}
	return m, len(body) == 0
}

// tailMatches reports whether the history still holds the folded part:
// at least Offset bytes, ending with Tail.
func tailMatches(hf *os.File, m keyMeta, size int64) (bool, error) {
	if size < m.Offset || (m.Offset > 0 && len(m.Tail) == 0) {
		return false, nil
	}
	got := make([]byte, len(m.Tail))
	if _, err := hf.ReadAt(got, m.Offset-int64(len(got))); err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("spool: read upload history: %w", err)
	}
	return bytes.Equal(got, m.Tail), nil
}

// decodeLines decodes the complete lines of b (which starts at offset
// base of the history) and returns how many bytes they span; a last line
// without newline is left for later (torn, or being written).
func decodeLines(path string, b []byte, base int64) ([]keyEntry, int64, error) {
	var out []keyEntry
	var used int64
	for {
		i := bytes.IndexByte(b[used:], '\n')
		if i < 0 {
			return out, used, nil
		}
		l := b[used : used+int64(i)]
		off := base + used
		used += int64(i) + 1
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		historyLinesDecoded.Add(1)
		var r UploadRecord
		if err := unmarshalRecord(l, &r); err != nil {
			return nil, 0, fmt.Errorf("spool: upload history %s at byte %d is corrupt: %w (repair or move the file; key numbers come from it)", path, off, err)
		}
		out = append(out, keyEntry{Off: off, Rec: r})
	}
}

// metaFor is the meta of a state folded to offset: Tail is the last
// folded line (its time tells it from any other; at most keyTailLen bytes).
func metaFor(hf *os.File, offset int64) (keyMeta, error) {
	m := keyMeta{Version: keyStateVersion, Offset: offset, Tail: make([]byte, min(offset, keyTailLen))}
	if _, err := hf.ReadAt(m.Tail, offset-int64(len(m.Tail))); err != nil && !errors.Is(err, io.EOF) {
		return m, fmt.Errorf("spool: read upload history: %w", err)
	}
	if n := len(m.Tail); n > 1 {
		if i := bytes.LastIndexByte(m.Tail[:n-1], '\n'); i >= 0 {
			m.Tail = m.Tail[i+1:]
		}
	}
	return m, nil
}

// rebuildKeyState folds the whole history into a fresh key state.
func (s *Store) rebuildKeyState(hf *os.File, dir string) (keyMeta, error) {
	b, err := io.ReadAll(io.NewSectionReader(hf, 0, 1<<62))
	if err != nil {
		return keyMeta{}, fmt.Errorf("spool: read upload history: %w", err)
	}
	ents, used, err := decodeLines(hf.Name(), b, 0)
	if err != nil {
		return keyMeta{}, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return keyMeta{}, fmt.Errorf("spool: reset key state: %w", err)
	}
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return keyMeta{}, fmt.Errorf("spool: create key state: %w", err)
	}
	shards := map[int][]keyEntry{}
	for _, e := range ents {
		i := shardOf(e.Rec.SenderID, e.Rec.BusinessID)
		shards[i] = append(shards[i], e)
	}
	return writeKeyState(hf, dir, keyMeta{Shards: map[int]uint32{}}, shards, used)
}

// foldTail adds the lines appended after m.Offset to their shards.
func foldTail(hf *os.File, dir string, m keyMeta, size int64) (keyMeta, error) {
	b := make([]byte, size-m.Offset)
	if _, err := hf.ReadAt(b, m.Offset); err != nil && !errors.Is(err, io.EOF) {
		return m, fmt.Errorf("spool: read upload history: %w", err)
	}
	ents, used, err := decodeLines(hf.Name(), b, m.Offset)
	if err != nil || used == 0 {
		return m, err
	}
	shards := map[int][]keyEntry{}
	for _, e := range ents {
		i := shardOf(e.Rec.SenderID, e.Rec.BusinessID)
		shards[i] = append(shards[i], e)
	}
	next, err := metaFor(hf, m.Offset+used)
	if err != nil {
		return m, err
	}
	next.Shards = maps.Clone(m.Shards)
	if next.Shards == nil {
		next.Shards = map[int]uint32{}
	}
	for i, es := range shards {
		// appended to as it is: a shard that is not what the meta file
		// says (a fold that did not finish) stays unlike it, as a CRC-32
		// extended by the same bytes from another start differs, and the
		// next read rebuilds the state
		add, err := shardLines(es)
		if err != nil {
			return m, err
		}
		if err := appendFile(filepath.Join(dir, shardName(i)), add); err != nil {
			return m, fmt.Errorf("spool: write key state: %w", err)
		}
		next.Shards[i] = crc32.Update(m.Shards[i], crc32.IEEETable, add)
	}
	return next, writeKeyMeta(dir, next)
}

// appendFile appends data to path (created when missing), without fsync:
// the key state is a checked cache.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeKeyState writes the shards, then the meta file with their CRC-32s and
// the new offset. Each file is replaced by rename (a reader sees a whole
// one); a crash in between leaves shards that do not match the meta file
// (rebuilt), and entries past the old offset, which readers ignore.
func writeKeyState(hf *os.File, dir string, old keyMeta, shards map[int][]keyEntry, offset int64) (keyMeta, error) {
	m, err := metaFor(hf, offset)
	if err != nil {
		return m, err
	}
	m.Shards = make(map[int]uint32, len(old.Shards)+len(shards))
	maps.Copy(m.Shards, old.Shards)
	for i, ents := range shards {
		sum, err := writeKeyShard(dir, i, ents)
		if err != nil {
			return keyMeta{}, err
		}
		m.Shards[i] = sum
	}
	return m, writeKeyMeta(dir, m)
}

// writeKeyMeta replaces the meta file (keyMetaName).
func writeKeyMeta(dir string, m keyMeta) error {
	b := make([]byte, 0, 3*binary.MaxVarintLen64+len(m.Tail)+len(m.Shards)*2*binary.MaxVarintLen64+8)
	b = binary.AppendUvarint(b, keyStateVersion)
	b = binary.AppendUvarint(b, uint64(m.Offset))
	b = binary.AppendUvarint(b, uint64(len(m.Tail)))
	b = append(b, m.Tail...)
	b = binary.AppendUvarint(b, uint64(len(m.Shards)))
	for i, sum := range m.Shards {
		b = binary.AppendUvarint(b, uint64(i))
		b = binary.AppendUvarint(b, uint64(sum))
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	if err := replaceFile(dir, keyMetaName, b); err != nil {
		return fmt.Errorf("spool: write key state: %w", err)
	}
	return nil
}

// replaceFile writes dir/name through a temp file and rename, without
// fsync: the key state is a checked cache.
func replaceFile(dir, name string, data []byte) error {
	f, err := createTemp(dir, "keyplan")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// shardBytes reads shard i of state m: errKeyStateDamaged when it is
// not the file m recorded.
func shardBytes(dir string, m keyMeta, i int) ([]byte, error) {
	want, ok := m.Shards[i]
	b, err := os.ReadFile(filepath.Join(dir, shardName(i)))
	if errors.Is(err, fs.ErrNotExist) && !ok {
		return nil, nil
	}
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (!ok || crc32.ChecksumIEEE(b) != want)) {
		return nil, fmt.Errorf("%w: %s does not match the meta file", errKeyStateDamaged, shardName(i))
	}
	if err != nil {
		return nil, fmt.Errorf("spool: read key state: %w", err)
	}
	return b, nil
}

// readShard reads every entry of shard i of state m.
func readShard(dir string, m keyMeta, i int) ([]keyEntry, error) {
	return readShardWith(dir, m, i, nil)
}

// readShardPlan reads the entries of shard i whose plan hash is plan.
func readShardPlan(dir string, m keyMeta, i int, plan uint64) ([]keyEntry, error) {
	return readShardWith(dir, m, i, strconv.AppendUint(nil, plan, 16))
}

// readShardWith reads the entries of shard i whose plan hash is written
// plan (nil: every entry); the others are only checked for their form.
func readShardWith(dir string, m keyMeta, i int, plan []byte) ([]keyEntry, error) {
	b, err := shardBytes(dir, m, i)
	if err != nil {
		return nil, err
	}
	var ents []keyEntry
	for len(b) > 0 {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			return nil, fmt.Errorf("%w: %s: a torn line", errKeyStateDamaged, shardName(i))
		}
		line := b[:j]
		b = b[j+1:]
		offText, rest, ok1 := bytes.Cut(line, []byte(" "))
		planText, rec, ok2 := bytes.Cut(rest, []byte(" "))
		off, ok3 := digits(offText, 10)
		_, ok4 := digits(planText, 16)
		if !ok1 || !ok2 || !ok3 || !ok4 || off > math.MaxInt64 {
			return nil, fmt.Errorf("%w: %s: a line that is not OFFSET PLAN RECORD", errKeyStateDamaged, shardName(i))
		}
		if plan != nil && !bytes.Equal(planText, plan) {
			continue
		}
		e := keyEntry{Off: int64(off)}
		if err := unmarshalRecord(rec, &e.Rec); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errKeyStateDamaged, shardName(i), err)
		}
		ents = append(ents, e)
	}
	return ents, nil
}

// shardLines is the shard lines of ents.
func shardLines(ents []keyEntry) ([]byte, error) {
	var b []byte
	for _, e := range ents {
		rec, err := json.Marshal(e.Rec)
		if err != nil {
			return nil, err
		}
		b = strconv.AppendInt(b, e.Off, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, planHash(e.Rec.SenderID, e.Rec.BusinessID), 16)
		b = append(b, ' ')
		b = append(append(b, rec...), '\n')
	}
	return b, nil
}

func writeKeyShard(dir string, i int, ents []keyEntry) (uint32, error) {
	b, err := shardLines(ents)
	if err != nil {
		return 0, err
	}
	if err := replaceFile(dir, shardName(i), b); err != nil {
		return 0, fmt.Errorf("spool: write key state: %w", err)
	}
	return crc32.ChecksumIEEE(b), nil
}

// digits reads an unsigned number in base 10 or 16 (lower-case) as
// strconv.AppendUint writes it: no sign, no leading zero, at most 64 bits.
func digits(b []byte, base uint64) (uint64, bool) {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			return 0, false
		}
		if v > (math.MaxUint64-d)/base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}
