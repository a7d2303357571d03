// Package outbox is the local side of the team store: a durable queue,
// one per data directory, of what this machine stored (a delivery, its
// receipt, an upload record, a seen line, an `event listen` capture),
// and the pusher that feeds it, in order, to the team's PostgreSQL
// (a [Remote]). The local files stay the first durable copy; the outbox
// only says which of them the team store has not had yet.
//
// Layout, next to the tracking index (owner-only):
//
//	<data dir>/.index/outbox/journal.jsonl   what was stored, one JSON line each, appended
//	<data dir>/.index/outbox/pushed.jsonl    the pusher's ledger: each pushed entry's identity and the committed cursor
//	<data dir>/.index/outbox/push.lock       flock: one pusher per data directory
//
// Why a journal and not SQLite: Enqueue sits on the download path right
// after the durable local write, and must neither block nor fail it. An
// append of one line with O_APPEND is one write(2), a few microseconds,
// atomic between the processes of one machine (the app, a `fetch` from
// cron, `event listen`), and survives a kill -9 (the kernel has it). A
// SQLite insert costs a transaction and can wait for another process's
// lock (busy_timeout); the download path must never wait for it. The
// journal is fsynced off that path (by the pusher before each round,
// and on Close); what a power cut could cut is still in the local files,
// and `b2bx store push` queues everything again. Entries reference what
// was stored — kind, spool root, connection, ID, the small upload or seen
// record — never a payload's bytes: the pusher reads the payload from
// the spool when it pushes, so the outbox costs no second copy.
//
// The ledger holds, for each entry the pusher pushed, the identity of
// the state it pushed (a delivery's ID, SHA-256 and receipt, ...) and the
// journal offset after it: its last line is the committed cursor. A crash
// between the remote's success and the ledger line re-pushes that entry
// (the team store is idempotent by ID and SHA-256, so it is harmless); a
// crash after it re-reads the entry and skips it by its identity. A
// torn last line of either file (a crash mid-append) is repaired when
// it is opened.
package outbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// File names inside the outbox directory.
const (
	journalName = "journal.jsonl"
	ledgerName  = "pushed.jsonl"
	lockName    = "push.lock"
)

// Dir is the outbox directory of data directory dataDir (beside the
// tracking index, track.DBPath).
func Dir(dataDir string) string { return filepath.Join(dataDir, ".index", "outbox") }

// Kind is what an entry references.
type Kind string

// Entry kinds.
const (
	KindDelivery Kind = "delivery" // a stored delivery (stored or acknowledged)
	KindUpload   Kind = "upload"   // an upload history record
	KindSeen     Kind = "seen"     // a seen journal line
	KindCapture  Kind = "capture"  // a committed `event listen` capture file
)

// Entry is one line of the journal: a reference to something stored
// locally. The JSON field "kind" comes first (see repairLine).
type Entry struct {
	Kind Kind `json:"kind"`
	// Root is the spool root, Conn the connection (not for captures).
	Root string `json:"root,omitempty"`
	Conn string `json:"conn,omitempty"`
	// ID, SHA256 and Receipt name a delivery as it was when queued; the
	// pusher reads its current sidecar and payload from the spool.
	ID      string `json:"id,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Receipt string `json:"receipt,omitempty"`
	// Upload and Seen are the records as written (small, no payload).
	Upload *spool.UploadRecord `json:"upload,omitempty"`
	Seen   *spool.SeenRecord   `json:"seen,omitempty"`
	// Path is a capture's file.
	Path string `json:"path,omitempty"`
	// At is when it was queued.
	At time.Time `json:"at"`
}

// identity names the state an entry stands for: what the ledger keeps,
// so the same state is pushed once by the outbox's account.
func (e *Entry) identity() string {
	var s string
	switch e.Kind {
	case KindDelivery:
		s = strings.Join([]string{"d", e.Conn, e.ID, strings.ToLower(e.SHA256), e.Receipt}, "\x00")
	case KindUpload:
		if e.Upload == nil {
			return ""
		}
		u := e.Upload
		s = strings.Join([]string{"u", u.ConnectionID, u.Key, strings.ToLower(u.SHA256), string(u.Outcome), u.Time.UTC().Format(time.RFC3339Nano)}, "\x00")
	case KindSeen:
		if e.Seen == nil {
			return ""
		}
		r := e.Seen
		s = strings.Join([]string{"s", r.ConnectionID, r.DeliveryAttemptID, string(r.State), r.Step, r.Time.UTC().Format(time.RFC3339Nano)}, "\x00")
	case KindCapture:
		s = "c\x00" + e.Path
	default:
		return ""
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// Options configure an Outbox.
type Options struct {
	// Now is the clock of Entry.At (nil: time.Now).
	Now func() time.Time
	// Warn gets one line when queueing starts failing (a full disk, a
	// read-only directory) and one when it works again; nil discards.
	// The local write it followed has succeeded either way.
	Warn func(string)
}

// Outbox is the queue of one data directory, safe for concurrent use.
// Several processes may queue into the same directory at once.
type Outbox struct {
	dir  string
	opts Options

	mu      sync.Mutex
	f       *os.File // the journal, O_APPEND
	dirty   bool     // appended since the last Sync
	failing bool     // the last append failed (and Warn said so)
	closed  bool

	queued  atomic.Int64 // entries this process appended
	dropped atomic.Int64 // entries this process could not append
	wake    chan struct{}
}

// Open opens (creating) the outbox in dir, repairing a torn last line
// of its journal. An error means the directory cannot be used at all;
// the caller goes on without an outbox and says so.
func Open(dir string, opts Options) (*Outbox, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("outbox: create %s: %w", dir, err)
	}
	o := &Outbox{dir: dir, opts: opts, wake: make(chan struct{}, 1)}
	f, err := os.OpenFile(o.journalPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("outbox: open %s: %w", o.journalPath(), err)
	}
	o.f = f
	// a failed repair is no reason to stop: the reader recovers an entry
	// glued onto a torn piece (repairLine)
	_ = repairTail(o.journalPath(), f)
	return o, nil
}

// Dir is the outbox's directory.
func (o *Outbox) Dir() string { return o.dir }

func (o *Outbox) journalPath() string { return filepath.Join(o.dir, journalName) }
func (o *Outbox) ledgerPath() string  { return filepath.Join(o.dir, ledgerName) }

// repairTail ends a torn last line (a process died mid-append) with a
// newline, so the next entry starts on its own line; the reader skips
// the torn piece. It appends rather than truncates: another process may
// be appending right now, and O_APPEND keeps both whole.
func repairTail(path string, w *os.File) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil || st.Size() == 0 || !st.Mode().IsRegular() {
		return err
	}
	var last [1]byte
	if _, err := r.ReadAt(last[:], st.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err = w.Write([]byte{'\n'})
	return err
}

// Enqueue appends e to the journal. Call it right after the durable
// local write it references, never before. It never fails the caller:
// when the append fails, Warn says so once (the local copy is safe and
// `b2bx store push` queues it later) and the entry is counted as
// dropped.
func (o *Outbox) Enqueue(e Entry) {
	if e.At.IsZero() {
		e.At = o.opts.Now().UTC()
	}
	line, err := json.Marshal(&e)
	if err != nil {
		o.report(err)
		return
	}
	line = append(line, '\n')
	o.mu.Lock()
	switch {
	case o.closed:
		err = errors.New("the outbox is closed")
	default:
		_, err = o.f.Write(line) // one write of a whole line: two processes' appends never interleave
	}
	if err == nil {
		o.dirty = true
		o.queued.Add(1)
		if o.failing {
			o.failing = false
			o.say("the outbox queues again; run 'b2bx store push' to queue what it missed")
		}
	}
	o.mu.Unlock()
	if err != nil {
		o.report(err)
		return
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// report counts a dropped entry and warns once per failing spell.
func (o *Outbox) report(err error) {
	o.dropped.Add(1)
	o.mu.Lock()
	first := !o.failing
	o.failing = true
	o.mu.Unlock()
	if first {
		o.say(fmt.Sprintf("the outbox cannot queue for the team store (%v); the local copy is stored, run 'b2bx store push' once %s is writable again", err, o.dir))
	}
}

func (o *Outbox) say(msg string) {
	if o.opts.Warn != nil {
		o.opts.Warn(termsafe.String(msg))
	}
}

// Hook is the spool's OnWrite function: each durable write becomes an
// entry.
func (o *Outbox) Hook() func(spool.Written) {
	return func(w spool.Written) {
		if e, ok := FromWritten(w); ok {
			o.Enqueue(e)
		}
	}
}

// Attach installs the outbox as s's OnWrite hook.
func (o *Outbox) Attach(s *spool.Store) { s.SetOnWrite(o.Hook()) }

// FromWritten is the entry of a spool write.
func FromWritten(w spool.Written) (Entry, bool) {
	switch w.Kind {
	case spool.WroteDelivery, spool.WroteAck:
		if w.Stored == nil {
			return Entry{}, false
		}
		return DeliveryEntry(w.Root, w.Stored), true
	case spool.WroteUpload:
		if w.Upload == nil {
			return Entry{}, false
		}
		r := *w.Upload
		return Entry{Kind: KindUpload, Root: w.Root, Conn: w.ConnectionID, Upload: &r}, true
	case spool.WroteSeen:
		if w.Seen == nil {
			return Entry{}, false
		}
		r := *w.Seen
		return Entry{Kind: KindSeen, Root: w.Root, Conn: w.ConnectionID, Seen: &r}, true
	}
	return Entry{}, false
}

// DeliveryEntry references a stored delivery in its current state.
func DeliveryEntry(root string, st *spool.Stored) Entry {
	return Entry{Kind: KindDelivery, Root: root, Conn: st.Meta.ConnectionID, ID: st.Meta.DeliveryAttemptID,
		SHA256: st.Meta.SHA256, Receipt: st.Meta.ReceiptID}
}

// CaptureEntry references a committed capture file.
func CaptureEntry(path string) Entry {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return Entry{Kind: KindCapture, Path: path}
}

// Queued is how many entries this process appended; Dropped how many it
// could not.
func (o *Outbox) Queued() int64  { return o.queued.Load() }
func (o *Outbox) Dropped() int64 { return o.dropped.Load() }

// Sync makes the appended entries durable (fsync), when there are any.
func (o *Outbox) Sync() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.dirty || o.closed {
		return nil
	}
	o.dirty = false
	if err := o.f.Sync(); err != nil {
		return fmt.Errorf("outbox: fsync %s: %w", o.journalPath(), err)
	}
	return nil
}

// Close syncs and closes the journal. Enqueue after Close drops.
func (o *Outbox) Close() error {
	err := o.Sync()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return err
	}
	o.closed = true
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readEntries decodes the complete lines of b (b starts at a line start
// at offset base): each entry with the offset after its line. A torn
// last line (no newline yet) is left for the next read; n is how many
// bytes were consumed. A line that does not decode is skipped, after
// trying the last entry glued onto a torn piece (see repairLine).
func readEntries(b []byte, base int64) (out []queued, n int64, bad int) {
	for {
		i := bytes.IndexByte(b[n:], '\n')
		if i < 0 {
			return out, n, bad
		}
		l := b[n : n+int64(i)]
		n += int64(i) + 1
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(l, &e); err != nil {
			if !repairLine(l, &e) {
				bad++
				continue
			}
		}
		out = append(out, queued{e: e, end: base + n})
	}
}

// repairLine recovers an entry appended right after a torn piece another
// process left (before any Open repaired it): the entry starts at the
// last `{"kind":`.
func repairLine(l []byte, e *Entry) bool {
	i := bytes.LastIndex(l, []byte(`{"kind":`))
	if i <= 0 {
		return false
	}
	*e = Entry{}
	return json.Unmarshal(l[i:], e) == nil
}

// queued is a journal entry with the offset after its line.
type queued struct {
	e   Entry
	end int64
}

// mark is, at one moment, how many entries this process appended and
// the journal's size: what a read up to that size holds of them.
func (o *Outbox) mark() (queued, size int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	queued = o.queued.Load()
	if fi, err := o.f.Stat(); err == nil && !o.closed {
		size = fi.Size()
	} else {
		size = -1
	}
	return queued, size
}

// readFrom reads the journal from off to its end.
func (o *Outbox) readFrom(off int64) ([]byte, error) { return o.readRange(off, -1) }

// readRange reads the journal from off up to size (-1: its end).
func (o *Outbox) readRange(off, size int64) ([]byte, error) {
	f, err := os.Open(o.journalPath())
	if err != nil {
		return nil, fmt.Errorf("outbox: read %s: %w", o.journalPath(), err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size < 0 || size > st.Size() {
		size = st.Size()
	}
	if size <= off {
		return nil, nil
	}
	b := make([]byte, size-off)
	if _, err := io.ReadFull(io.NewSectionReader(f, off, int64(len(b))), b); err != nil {
		return nil, fmt.Errorf("outbox: read %s: %w", o.journalPath(), err)
	}
	return b, nil
}
