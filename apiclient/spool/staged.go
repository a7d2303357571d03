package spool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Staged is a payload being written: a temp file the client streams into
// (while it hashes the same bytes), then either committed or aborted. It is
// used by one goroutine.
type Staged struct {
	s    *Store
	conn string
	id   string
	dir  string
	f    *os.File
	n    int64
	err  error // first write error
	done bool
	kick int64 // offset up to which writeback was started
}

// writebackChunk is how much staged data may pile up in the page cache
// before writeback is started (see startWriteback). A variable so the
// benchmark can compare with writeback left to the final fsync.
var writebackChunk int64 = 4 << 20

// Begin stages a new payload for the delivery. The returned writer is a
// plain file write path (no extra buffering or copying); the caller must
// end with Commit or Abort.
func (s *Store) Begin(connectionID, deliveryAttemptID string) (*Staged, error) {
	if deliveryAttemptID == "" {
		return nil, errors.New("spool: empty delivery attempt ID")
	}
	dir, err := s.deliveriesDir(connectionID)
	if err != nil {
		return nil, err
	}
	f, err := createTemp(dir, "payload")
	if err != nil {
		return nil, fmt.Errorf("spool: stage %q: %w", deliveryAttemptID, err)
	}
	return &Staged{s: s, conn: connectionID, id: deliveryAttemptID, dir: dir, f: f}, nil
}

// Write appends to the staged file. After the first error every call
// fails with it, so a full disk is reported once and clearly.
func (w *Staged) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.done {
		return 0, errors.New("spool: write after commit or abort")
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	if err != nil {
		w.err = fmt.Errorf("spool: write %q: %w", w.id, err)
		return n, w.err
	}
	if w.n-w.kick >= writebackChunk {
		startWriteback(w.f, w.kick, w.n-w.kick)
		w.kick = w.n
	}
	return n, nil
}

// Written is the number of bytes staged so far.
func (w *Staged) Written() int64 { return w.n }

// Err is the first write error, if any: a local storage failure, not a
// network one.
func (w *Staged) Err() error { return w.err }

// Abort discards the staged file. It is safe to call after Commit (then it
// does nothing), so callers may defer it.
func (w *Staged) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	_ = w.f.Close()
	if err := os.Remove(w.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spool: remove staged file: %w", err)
	}
	return nil
}

// Commit makes the staged bytes durable as the delivery's payload and
// writes its sidecar: fsync, rename into place, directory fsync, then the
// sidecar the same way. m describes the bytes as the integrity check saw
// them; its Size must equal what was written. Storing the same delivery
// with the same SHA-256 again is a no-op (AlreadyStored); different bytes
// for an ID already stored fail with ErrConflict and keep the stored copy.
// On any error the staged file is removed.
func (w *Staged) Commit(m Meta) (*Stored, error) {
	if w.done {
		return nil, errors.New("spool: commit after commit or abort")
	}
	if w.err != nil {
		_ = w.Abort()
		return nil, w.err
	}
	if err := w.prepare(&m); err != nil {
		_ = w.Abort()
		return nil, err
	}
	// The sidecar is staged beside the payload and both are fsynced at
	// once (the journal commits them together), then renamed payload
	// first and made durable by one directory fsync. Nothing is reported
	// stored, so nothing can be acknowledged, before that fsync returned.
	side, err := stageMeta(w.dir, &m)
	if err != nil {
		_ = w.Abort()
		return nil, fmt.Errorf("spool: write metadata of %q: %w", w.id, err)
	}
	defer side.abort()
	if err := syncBoth(w.f, side.f); err != nil {
		_ = w.Abort()
		return nil, fmt.Errorf("spool: fsync payload %q: %w", w.id, err)
	}
	unlock, err := w.s.lockConn(w.conn)
	if err != nil {
		_ = w.Abort()
		return nil, err
	}
	defer unlock()
	if st, err := w.existing(&m); st != nil || err != nil {
		_ = w.Abort()
		return st, err
	}
	if err := w.f.Close(); err != nil {
		_ = w.Abort()
		return nil, fmt.Errorf("spool: close payload %q: %w", w.id, err)
	}
	final := filepath.Join(w.dir, m.File)
	if err := os.Rename(w.f.Name(), final); err != nil {
		_ = w.Abort()
		return nil, fmt.Errorf("spool: rename payload %q into place: %w", w.id, err)
	}
	w.done = true
	if err := side.commit(); err != nil {
		return nil, fmt.Errorf("spool: write metadata of %q: %w", w.id, err)
	}
	if err := syncDir(w.dir); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	st := &Stored{Meta: m, Path: final}
	w.s.wrote(Written{Kind: WroteDelivery, ConnectionID: w.conn, Stored: st})
	return st, nil
}

// stagedFile is a temp file holding a file's complete new content, not
// yet synced or renamed into place.
type stagedFile struct {
	f    *os.File
	dst  string
	done bool
}

// stageMeta writes m's sidecar into a temp file in dir.
func stageMeta(dir string, m *Meta) (*stagedFile, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	f, err := createTemp(dir, "meta")
	if err != nil {
		return nil, err
	}
	s := &stagedFile{f: f, dst: filepath.Join(dir, sidecarName(m.DeliveryAttemptID))}
	if _, err := f.Write(append(b, '\n')); err != nil {
		s.abort()
		return nil, err
	}
	return s, nil
}

// commit closes the (synced) temp file and renames it into place; the
// caller fsyncs the directory.
func (s *stagedFile) commit() error {
	s.done = true
	if err := s.f.Close(); err != nil {
		_ = os.Remove(s.f.Name())
		return err
	}
	if err := os.Rename(s.f.Name(), s.dst); err != nil {
		_ = os.Remove(s.f.Name())
		return err
	}
	return nil
}

// abort removes the temp file unless it was committed.
func (s *stagedFile) abort() {
	if s.done {
		return
	}
	s.done = true
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
}

// syncBoth fsyncs a and b at the same time: the file system's journal
// commits both in about the time of one.
func syncBoth(a, b *os.File) error {
	errc := make(chan error, 1)
	go func() { errc <- fsyncFile(b) }()
	err := fsyncFile(a)
	if berr := <-errc; err == nil {
		err = berr
	}
	return err
}

// prepare validates and completes the metadata.
func (w *Staged) prepare(m *Meta) error {
	if m.DeliveryAttemptID == "" {
		m.DeliveryAttemptID = w.id
	}
	if m.DeliveryAttemptID != w.id {
		return fmt.Errorf("spool: metadata is for %q, staged file for %q", m.DeliveryAttemptID, w.id)
	}
	if m.ConnectionID == "" {
		m.ConnectionID = w.conn
	}
	if m.Size != w.n {
		return fmt.Errorf("spool: %q: metadata says %d bytes, %d were written", w.id, m.Size, w.n)
	}
	m.SHA256 = strings.ToLower(m.SHA256)
	if b, err := hex.DecodeString(m.SHA256); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("spool: %q: sha256 %q is not 64 hex digits", w.id, m.SHA256)
	}
	if m.ReceivedAt.IsZero() {
		m.ReceivedAt = w.s.now()
	}
	m.ReceivedAt = m.ReceivedAt.UTC()
	m.File = payloadName(w.id)
	m.ReceiptID, m.AcknowledgedAt = "", nil
	return nil
}

// existing handles a delivery that is already (maybe partly) stored. It
// returns (nil, nil) when nothing is stored yet. Called under the lock.
func (w *Staged) existing(m *Meta) (*Stored, error) {
	old, err := readMeta(w.dir, w.id)
	switch {
	case err == nil:
		if old.SHA256 == m.SHA256 && old.Size == m.Size {
			// A sidecar whose payload is missing or short (a crash
			// after the renames, before the directory fsync, on a file
			// system that kept the second rename only) is not a stored
			// delivery: store it again.
			if fi, serr := os.Lstat(filepath.Join(w.dir, old.File)); serr != nil || !fi.Mode().IsRegular() || fi.Size() != old.Size {
				return nil, nil
			}
			return &Stored{Meta: *old, Path: filepath.Join(w.dir, old.File), AlreadyStored: true}, nil
		}
		return nil, conflictErr(w.id, old.SHA256, m.SHA256, filepath.Join(w.dir, old.File))
	case !errors.Is(err, ErrNotFound):
		return nil, err
	}
	// No sidecar. A payload file without one is a crash between the two
	// renames: its bytes were verified before, so keep it if they match.
	final := filepath.Join(w.dir, m.File)
	sum, size, err := hashFile(final)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: check existing payload of %q: %w", w.id, err)
	}
	if sum != m.SHA256 || size != m.Size {
		return nil, conflictErr(w.id, sum, m.SHA256, final)
	}
	if err := writeMeta(w.dir, m); err != nil {
		return nil, fmt.Errorf("spool: write metadata of %q: %w", w.id, err)
	}
	return &Stored{Meta: *m, Path: final, AlreadyStored: true}, nil
}

func conflictErr(id, have, got, path string) error {
	return fmt.Errorf("%w: delivery %q is already stored at %s with sha256 %s, the new download has %s; the stored copy is kept and nothing is acknowledged — compare both with the partner before moving the stored file away",
		ErrConflict, id, path, have, got)
}

func hashFile(path string) (string, int64, error) {
	return hashFileContext(context.Background(), path)
}

// hashFileContext hashes a regular file (never following a symlink or
// opening a FIFO or device at path); cancelling ctx stops it.
func hashFileContext(ctx context.Context, path string) (string, int64, error) {
	f, err := OpenRegular(path, false)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := newHasher()
	n, err := io.Copy(h, ContextReader(ctx, f))
	if err != nil {
		return "", 0, err
	}
	return h.sum(), n, nil
}

// hasher is SHA-256 with a lower-case hex result.
type hasher struct{ hash.Hash }

func newHasher() hasher      { return hasher{sha256.New()} }
func (h hasher) sum() string { return hex.EncodeToString(h.Sum(nil)) }
