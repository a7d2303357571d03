package spool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/internal/jsonline"
)

// Outcome is the state of one upload attempt in the history.
type Outcome string

// Upload outcomes.
const (
	// OutcomePending: the key was reserved and the upload is being sent. A
	// pending record without a later one means the process died mid-send:
	// the server may have the bytes, so the next attempt reuses the key.
	OutcomePending Outcome = "pending"
	// OutcomeAccepted: 202, or 200 with replay.
	OutcomeAccepted Outcome = "accepted"
	// OutcomeConflict: 409, the key is bound to other bytes or state.
	OutcomeConflict Outcome = "conflict"
	// OutcomeFailed: another definitive error (400, 404, 413, ...): the
	// server did not take the bytes; fix the cause, the key stays usable.
	OutcomeFailed Outcome = "failed"
	// OutcomeUnclear: network failure, 5xx or cancellation: the upload may
	// or may not have arrived, so the key must be reused.
	OutcomeUnclear Outcome = "unclear"
)

// UploadRecord is one line of the upload history. A reservation appends a
// pending record; the result appends a second record for the same key.
type UploadRecord struct {
	Time         time.Time `json:"time"`
	ConnectionID string    `json:"connectionId"`
	File         string    `json:"file"`
	Size         int64     `json:"size"`
	SHA256       string    `json:"sha256"`
	Key          string    `json:"key"`
	SenderID     string    `json:"senderId,omitempty"`
	BusinessID   string    `json:"businessId,omitempty"`
	// RecipientID, ControlRef and DocNumbers are the interchange's UNB
	// recipient, UNB control reference (0020) and the BGM document numbers
	// of its ORDERS, in message order: what links a CONTRL (control
	// reference and sender) or an ORDRSP/APERAK (RFF+ON) to this upload.
	// History lines written before they existed load with them empty.
	RecipientID   string   `json:"recipientId,omitempty"`
	ControlRef    string   `json:"controlRef,omitempty"`
	DocNumbers    []string `json:"docNumbers,omitempty"`
	N             int      `json:"n"` // 0: a key the operator gave with --key
	Outcome       Outcome  `json:"outcome"`
	HTTPStatus    int      `json:"httpStatus,omitempty"`
	UploadID      string   `json:"uploadId,omitempty"`
	InterchangeID string   `json:"interchangeId,omitempty"`
	Status        string   `json:"status,omitempty"`
	Replay        bool     `json:"replay,omitempty"`
	ErrorCode     string   `json:"errorCode,omitempty"`
	CorrelationID string   `json:"correlationId,omitempty"`
	// Fixes names the upload this one fixes and resends (`b2bx upload
	// --fixes`): its uploadId, else its key; "" for other uploads.
	Fixes string `json:"fixes,omitempty"`
	// ServerTime is when the server took the upload by its own clock (the
	// answer's Date header); zero when unknown (older lines, no Date).
	ServerTime time.Time `json:"serverTime,omitzero"`
	// BuyerID and SupplierID are the GLNs of the first ORDERS' NAD+BY and
	// NAD+SU: order numbers are unique per buyer.
	BuyerID    string `json:"buyerId,omitempty"`
	SupplierID string `json:"supplierId,omitempty"`
	// Started is, on a record Attempts folded, the time of the attempt's
	// pending record: when the bytes began to leave (Time is when the
	// answer was recorded). Not stored.
	Started time.Time `json:"-"`
}

func (s *Store) historyPath(connectionID string) string {
	return filepath.Join(s.connDir(connectionID), "uploads.jsonl")
}

// parsedHistory is a parse of an upload history with the size and time
// the file had before it was read: the file only grows, so an unchanged
// size and time mean the same records.
type parsedHistory struct {
	size  int64
	mtime time.Time
	recs  []UploadRecord
}

// Uploads returns the connection's upload history in append order. One
// command asks for it several times (the pre-flight's history, the resend
// guard, the key reservation): an unchanged file is parsed once per Store.
func (s *Store) Uploads(connectionID string) ([]UploadRecord, error) {
	path := s.historyPath(connectionID)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil {
		s.mu.Lock()
		c, ok := s.hist[path]
		s.mu.Unlock()
		if ok && c.size == fi.Size() && c.mtime.Equal(fi.ModTime()) {
			return slices.Clone(c.recs), nil
		}
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: read upload history: %w", err)
	}
	recs, err := parseHistory(path, b)
	if err != nil || fi == nil {
		return recs, err
	}
	s.mu.Lock()
	if s.hist == nil {
		s.hist = map[string]parsedHistory{}
	}
	s.hist[path] = parsedHistory{size: fi.Size(), mtime: fi.ModTime(), recs: recs}
	s.mu.Unlock()
	return slices.Clone(recs), nil
}

// recentWindow is the first window RecentAttempts reads from the end;
// recentBatch is how many lines it decodes before it asks again whether
// they suffice, recentMargin how many more it decodes once they do.
const (
	recentWindow = 256 << 10
	recentBatch  = 64
	recentMargin = 16
)

// RecentAttempts returns the newest records of the connection's upload
// history, in append order, with what tells an attempt and its outcome
// (Time, ConnectionID, File, SHA256, Key, Outcome; the other fields are
// zero unless the line needed encoding/json): enough to fold attempts
// (Attempts) and to find the bytes sent (orders.SentFile). It decodes the
// lines from the end, a batch at a time, and asks enough after each: once
// it says they suffice, recentMargin more lines are decoded (a pending
// line just before the oldest attempt folds with it) and they are
// returned; at the
// start of the file, whatever there is. A question about the last uploads
// costs what they hold, not what the history holds. A line that cannot be
// decoded is skipped (a torn last line).
func (s *Store) RecentAttempts(connectionID string, enough func(recs []UploadRecord) bool) ([]UploadRecord, error) {
	recs, _, err := s.RecentAttemptsMarked(connectionID, enough)
	return recs, err
}

// HistoryMark says where a reader of an upload history stopped: the end
// of the last complete line it read (Size) and that line (Tail), which
// tells the same history (a line holds its time in nanoseconds) from one
// rewritten since.
type HistoryMark struct {
	Size int64
	Tail []byte
}

// RecentAttemptsMarked is RecentAttempts with the mark after the lines
// it read (zero when there are none).
func (s *Store) RecentAttemptsMarked(connectionID string, enough func(recs []UploadRecord) bool) ([]UploadRecord, HistoryMark, error) {
	var mark HistoryMark
	f, err := os.Open(s.historyPath(connectionID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, mark, nil
	}
	if err != nil {
		return nil, mark, fmt.Errorf("spool: read upload history: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, mark, fmt.Errorf("spool: read upload history: %w", err)
	}
	recs, mark, err := recentAttempts(f, fi.Size(), enough)
	if err != nil {
		return nil, HistoryMark{}, fmt.Errorf("spool: read upload history: %w", err)
	}
	return recs, mark, nil
}

// AttemptsAfter returns the lines appended to the connection's history
// after mark, as RecentAttempts returns them, and the mark after them;
// ok is false when the history no longer holds what mark says (shorter,
// another line at its end) or an appended line cannot be decoded (a reader
// then reads the history afresh).
func (s *Store) AttemptsAfter(connectionID string, mark HistoryMark) (recs []UploadRecord, next HistoryMark, ok bool, err error) {
	f, err := os.Open(s.historyPath(connectionID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, HistoryMark{}, false, nil
	}
	if err != nil {
		return nil, mark, false, fmt.Errorf("spool: read upload history: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, mark, false, fmt.Errorf("spool: read upload history: %w", err)
	}
	if mark.Size <= 0 || int64(len(mark.Tail)) > mark.Size || fi.Size() < mark.Size {
		return nil, mark, false, nil
	}
	buf := make([]byte, fi.Size()-mark.Size+int64(len(mark.Tail)))
	if _, err := f.ReadAt(buf, mark.Size-int64(len(mark.Tail))); err != nil && !errors.Is(err, io.EOF) {
		return nil, mark, false, fmt.Errorf("spool: read upload history: %w", err)
	}
	if !bytes.Equal(buf[:len(mark.Tail)], mark.Tail) {
		return nil, mark, false, nil
	}
	next = mark
	for rest := buf[len(mark.Tail):]; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return recs, next, true, nil // a torn or unfinished last line waits
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		next.Size += int64(len(line))
		next.Tail = line
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r UploadRecord
		if decodeHead(line[:i], &r) != nil {
			return nil, mark, false, nil
		}
		recs = append(recs, r)
	}
}

// recentAttempts is RecentAttemptsMarked over the open history f of size
// bytes.
func recentAttempts(f *os.File, size int64, enough func(recs []UploadRecord) bool) ([]UploadRecord, HistoryMark, error) {
	var mark HistoryMark
	var recs []UploadRecord // recs[n:] are decoded, oldest first
	n := 0
	from := size         // the lines decoded so far start here
	batch, more := 0, -1 // lines decoded since enough was asked; lines still to decode after it said yes
	for w := int64(recentWindow); ; w *= 4 {
		off := max(size-w, 0)
		buf := make([]byte, from-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, mark, err
		}
		if off > 0 { // the window starts inside a line: it is read with the next window
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			buf = buf[i+1:]
		}
		if from == size { // the first window: the mark is after its last complete line
			if end := bytes.LastIndexByte(buf, '\n'); end >= 0 {
				start := bytes.LastIndexByte(buf[:end], '\n') + 1
				mark = HistoryMark{Size: size - int64(len(buf)) + int64(end) + 1, Tail: bytes.Clone(buf[start : end+1])}
			}
		}
		from -= int64(len(buf))
		lines := bytes.Count(buf, []byte("\n")) + 1
		grown := make([]UploadRecord, lines+len(recs)-n)
		copy(grown[lines:], recs[n:])
		recs, n = grown, lines
		for end := len(buf); end > 0; {
			start := bytes.LastIndexByte(buf[:end], '\n') + 1
			if l := buf[start:end]; len(bytes.TrimSpace(l)) > 0 && decodeHead(l, &recs[n-1]) == nil {
				n--
				batch++
			}
			end = max(start-1, 0)
			switch {
			case more > 0:
				more--
				continue
			case more == 0:
				return recs[n:], mark, nil
			case batch < recentBatch:
				continue
			}
			batch = 0
			if enough(recs[n:]) {
				more = recentMargin
			}
		}
		if off == 0 || more >= 0 || enough(recs[n:]) {
			return recs[n:], mark, nil
		}
	}
}

// decodeHead decodes what RecentAttempts returns of a history line, as
// json.Unmarshal does; a line jsonline cannot read is decoded whole.
func decodeHead(line []byte, r *UploadRecord) error {
	if jsonline.Fields(line, func(name []byte, v jsonline.Value) bool {
		if ok, head := headField(r, name, v); head {
			return ok
		}
		return skippedField(string(name), v) // not decoded, but of its type, or json.Unmarshal would fail
	}) {
		return nil
	}
	*r = UploadRecord{}
	return json.Unmarshal(line, r)
}

// parseHistory decodes JSON lines. A torn last line (a crash during an
// append) is ignored; a bad line anywhere else is corruption and fails
// with its line number, because silently skipping it could reuse a key
// number.
func parseHistory(path string, b []byte) ([]UploadRecord, error) {
	var out []UploadRecord
	line := 0
	for len(b) > 0 {
		line++
		i := bytes.IndexByte(b, '\n')
		torn := i < 0
		var l []byte
		if torn {
			l, b = b, nil
		} else {
			l, b = b[:i], b[i+1:]
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		historyLinesDecoded.Add(1)
		var r UploadRecord
		if err := unmarshalRecord(l, &r); err != nil {
			if torn {
				break
			}
			return nil, fmt.Errorf("spool: upload history %s line %d is corrupt: %w (repair or move the file; key numbers come from it)", path, line, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Attempts folds a history (in append order) into one record per upload
// attempt, in the same order: the pending record a reservation wrote is
// replaced by the result recorded for the same key and bytes. A pending
// record without a result stays: the attempt is running, or its process
// died mid-send (the server may have the bytes). A result without a
// reservation (e.g. written by hand) is kept as its own attempt.
func Attempts(history []UploadRecord) []UploadRecord {
	out := make([]UploadRecord, 0, len(history)/2+1)
	open := map[string]int{} // key + sha → index in out of its latest pending record
	for _, r := range history {
		id := r.Key + "\x00" + strings.ToLower(r.SHA256)
		if r.Outcome == OutcomePending {
			open[id] = len(out)
			out = append(out, r)
			continue
		}
		if i, ok := open[id]; ok {
			delete(open, id)
			r.Started = out[i].Time
			out[i] = r
			continue
		}
		out = append(out, r)
	}
	return out
}

// ReserveUpload decides the key for a payload under the connection lock
// and, unless the operator must first choose (NeedChoice, returned with a
// nil record), appends a pending record with the key keyFor(n) before
// anything is sent. Holding the lock from reading the history to
// appending means two b2bx processes never hand out the same n for
// different bytes. rec carries the file, size and connection; its key
// fields are filled in here.
func (s *Store) ReserveUpload(req KeyRequest, rec UploadRecord, keyFor func(n int) (string, error)) (KeyDecision, *UploadRecord, error) {
	unlock, err := s.lockConn(rec.ConnectionID)
	if err != nil {
		return KeyDecision{}, nil, err
	}
	defer unlock()
	hist, err := s.keyHistoryForLocked(rec.ConnectionID, req.SenderID, req.BusinessID)
	if err != nil {
		return KeyDecision{}, nil, err
	}
	d := Decide(hist, req)
	if d.Kind == NeedChoice {
		return d, nil, nil
	}
	key, err := keyFor(d.N)
	if err != nil {
		return d, nil, err
	}
	rec.Key, rec.N = key, d.N
	rec.SenderID, rec.BusinessID, rec.SHA256 = req.SenderID, req.BusinessID, req.SHA256
	rec.Outcome = OutcomePending
	if err := s.appendLocked(&rec); err != nil {
		return d, nil, err
	}
	return d, &rec, nil
}

// AppendUpload adds a record (the result of an upload, or the pending
// record of a key the operator gave) to the history, durably.
func (s *Store) AppendUpload(rec UploadRecord) error {
	_, err := s.RecordUpload(rec)
	return err
}

// RecordUpload is AppendUpload returning the record as written: a zero
// Time is stamped with the store's clock, in UTC.
func (s *Store) RecordUpload(rec UploadRecord) (UploadRecord, error) {
	unlock, err := s.lockConn(rec.ConnectionID)
	if err != nil {
		return rec, err
	}
	defer unlock()
	err = s.appendLocked(&rec)
	return rec, err
}

// appendLocked writes one JSON line and fsyncs. If a crash left a torn
// last line, it is cut off first so the new record starts on its own line.
func (s *Store) appendLocked(rec *UploadRecord) error {
	if rec.ConnectionID == "" {
		return errors.New("spool: upload record without connection ID")
	}
	if rec.Time.IsZero() {
		rec.Time = s.now()
	}
	rec.Time = rec.Time.UTC()
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	path := s.historyPath(rec.ConnectionID)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return fmt.Errorf("spool: open upload history: %w", err)
	}
	defer f.Close()
	end, err := cutTornTail(f)
	if err != nil {
		return fmt.Errorf("spool: upload history %s: %w", path, err)
	}
	if _, err := f.WriteAt(append(line, '\n'), end); err != nil {
		return fmt.Errorf("spool: append upload history: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("spool: fsync upload history: %w", err)
	}
	if end == 0 {
		if err := syncDir(filepath.Dir(path)); err != nil { // a new file: make its name durable too
			return err
		}
	}
	r := *rec
	s.wrote(Written{Kind: WroteUpload, ConnectionID: rec.ConnectionID, Upload: &r})
	return nil
}

// cutTornTail truncates f after its last newline if the file does not end
// with one, and returns the offset to append at.
func cutTornTail(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, size))
	if err != nil {
		return 0, err
	}
	keep := int64(bytes.LastIndexByte(b, '\n') + 1)
	if err := f.Truncate(keep); err != nil {
		return 0, err
	}
	return keep, nil
}
