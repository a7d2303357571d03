package webhook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// Store layout: every delivery the receiver decided on is one raw HTTP
// request NNNNNNNNNNNN.http in the directory (zero-padded, so file-name
// order is arrival order, the order `b2bx event inspect DIR` replays);
// deliveries refused before they changed anything (signature, rate,
// oversized or unreadable request) go to refused/ (which inspect does not
// read, as it skips subdirectories).
const (
	RefusedDir = "refused"
	// MaxRefused bounds the refused captures kept; beyond it they are
	// counted, not written (an unauthenticated sender must not fill the
	// disk).
	MaxRefused = 10_000
	// MaxRefusedBytes bounds their total size.
	MaxRefusedBytes = 256 << 20
	nameDigits      = 12
)

// Header names the receiver adds to a capture.
const (
	HeaderReceived = events.ReceivedHeader // RFC 3339 receipt time, nanoseconds
	HeaderRefused  = "X-B2bx-Refused"      // why a refused delivery was refused
	HeaderRemote   = "X-B2bx-Remote"       // the peer address
)

// dropHeaders are never written to a capture: credentials a sender might
// add and hop-by-hop framing (the capture has its own Content-Length).
var dropHeaders = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true,
	"Connection": true, "Transfer-Encoding": true, "Content-Length": true, "Te": true, "Trailer": true, "Upgrade": true, "Keep-Alive": true}

// DefaultDir is where `b2bx event listen` and the app's live mode
// capture unless told otherwise: webhook-captures under the local data
// directory ($B2BX_DATA_DIR, else $XDG_DATA_HOME/b2bx, else
// ~/.local/share/b2bx). getenv is os.Getenv outside tests.
func DefaultDir(getenv func(string) string) (string, error) {
	root, err := spool.DefaultRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "webhook-captures"), nil
}

// Store keeps captured deliveries in a directory. A commit is durable
// (temporary files, fsync, rename, directory fsync) and atomic: a crash
// leaves either the whole capture or none. Captures are numbered one
// after the other from the state's last; a name already taken (a
// foreign file) is skipped, never overwritten. Safe for concurrent use.
type Store struct {
	dir string

	mu           sync.Mutex
	next         int64
	refused      int
	refusedBytes int64
	dropped      int
	// pending are the bodies of the batch being committed, for Original.
	pending map[string][]byte
	// own are the capture numbers found at open, ascending.
	own []int64
	// foreign are files in the directory this receiver did not write.
	foreign []string
	// maxRefused and maxRefusedBytes are MaxRefused and MaxRefusedBytes
	// (tests lower them).
	maxRefused      int
	maxRefusedBytes int64
	// dirf is the directory, open for its fsyncs (nil after Close).
	dirf *os.File
	// spares are empty temporary files made ahead of the deliveries
	// (stage.go); making counts those being made, spareSeq numbers them.
	spares   []spare
	making   int
	spareSeq int64
	closed   bool
}

// maxNumber is the highest capture number (nameDigits digits).
const maxNumber = 999_999_999_999

// ErrNumbers means the capture numbers are used up.
var ErrNumbers = errors.New("capture numbers exhausted")

// OpenStore opens (creating it, mode 0700) a capture directory and
// removes temporary files a crash left behind. It reads the directory
// once, in pieces (it may hold a great many captures).
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, RefusedDir), 0o700); err != nil {
		return nil, fmt.Errorf("capture directory: %w", err)
	}
	s := &Store{dir: dir, next: 1, maxRefused: MaxRefused, maxRefusedBytes: MaxRefusedBytes}
	if err := s.scan(); err != nil {
		return nil, err
	}
	dirf, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("capture directory: %w", err)
	}
	s.dirf = dirf
	return s, nil
}

// scan reads the directory at open: the captures, the foreign files and
// the refused ones; it removes the temporary files a crash left behind.
func (s *Store) scan() error {
	dir := s.dir
	err := eachEntry(dir, func(e os.DirEntry) {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".tmp"):
			_ = os.Remove(filepath.Join(dir, n))
		case !e.Type().IsRegular():
		case isCaptureName(n):
			v, _ := strconv.ParseInt(strings.TrimSuffix(n, events.ExtHTTP), 10, 64)
			s.own = append(s.own, v)
		case strings.EqualFold(filepath.Ext(n), events.ExtHTTP) || strings.EqualFold(filepath.Ext(n), events.ExtJSON):
			s.foreign = append(s.foreign, n)
		}
	})
	if err != nil {
		return err
	}
	sort.Slice(s.own, func(i, j int) bool { return s.own[i] < s.own[j] })
	sort.Strings(s.foreign)
	return eachEntry(filepath.Join(dir, RefusedDir), func(e os.DirEntry) {
		if strings.HasSuffix(e.Name(), ".tmp") {
			_ = os.Remove(filepath.Join(dir, RefusedDir, e.Name()))
		} else if strings.HasSuffix(e.Name(), events.ExtHTTP) {
			s.refused++
			if info, err := e.Info(); err == nil {
				s.refusedBytes += info.Size()
			}
		}
	})
}

// eachEntry calls fn for every entry of dir, reading it in pieces.
func eachEntry(dir string, fn func(os.DirEntry)) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("capture directory: %w", err)
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(4096)
		for _, e := range ents {
			fn(e)
		}
		if errors.Is(err, io.EOF) || (err == nil && len(ents) == 0) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("capture directory: %w", err)
		}
	}
}

// Dir is the capture directory.
func (s *Store) Dir() string { return s.dir }

// Foreign lists the files in the directory that look like deliveries but
// were not written by this receiver (found at open and by Replay); they
// are never replayed.
func (s *Store) Foreign() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.foreign...)
}

// Names lists the committed captures in arrival order.
func (s *Store) Names() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("capture directory: %w", err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && isCaptureName(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

func isCaptureName(n string) bool {
	base, ok := strings.CutSuffix(n, events.ExtHTTP)
	if !ok || len(base) != nameDigits {
		return false
	}
	for i := 0; i < len(base); i++ {
		if base[i] < '0' || base[i] > '9' {
			return false
		}
	}
	return true
}

func captureName(n int64) string { return fmt.Sprintf("%0*d%s", nameDigits, n, events.ExtHTTP) }

func captureNumber(name string) int64 {
	v, _ := strconv.ParseInt(strings.TrimSuffix(name, events.ExtHTTP), 10, 64)
	return v
}

// Commit stores a delivery durably under the next name and returns it.
// d.Header must hold the request's headers (see Capture).
func (s *Store) Commit(d events.Delivery) (string, error) {
	names, err := s.NextNames(1)
	if err != nil {
		return "", err
	}
	if err := s.CommitAll([]events.Delivery{d}, names); err != nil {
		return "", err
	}
	return names[0], nil
}

// NextNames returns the names the next n captures get: numbers after
// the last, skipping any that a file already holds. It implements
// events.Committer's Names.
func (s *Store) NextNames(n int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, n)
	for v := s.next; len(out) < n; v++ {
		if v > maxNumber {
			return nil, fmt.Errorf("%w: the next capture would be number %d, more than %d digits; start a new capture directory", ErrNumbers, v, nameDigits)
		}
		name := captureName(v)
		if _, err := os.Lstat(filepath.Join(s.dir, name)); err == nil {
			continue // a file this receiver did not write: never overwritten
		}
		out = append(out, name)
	}
	return out, nil
}

// CommitAll stores deliveries durably under names (from NextNames), in
// one go: every file written and fsynced (at once), renamed in order,
// then one fsync of the directory. On an error none is kept.
func (s *Store) CommitAll(ds []events.Delivery, names []string) error {
	tmps := make([]string, len(ds))
	if err := s.stageAll(ds, tmps); err != nil {
		return err
	}
	return s.commitStaged(ds, tmps, names)
}

// commitWriters bounds the capture files written and fsynced at once.
const commitWriters = 16

// setNext makes the next capture come after name.
func (s *Store) setNext(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := captureNumber(name) + 1; v > s.next {
		s.next = v
	}
}

// Refuse keeps a refused delivery in refused/ (not durably: it changed
// nothing), at most MaxRefused of them and MaxRefusedBytes in all, so
// unauthenticated senders cannot fill the disk.
func (s *Store) Refuse(d events.Delivery, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused >= s.maxRefused || s.refusedBytes+int64(len(d.Body)) > s.maxRefusedBytes {
		s.dropped++
		return
	}
	h := d.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(HeaderRefused, why)
	d.Header = h
	name := fmt.Sprintf("%s-%06d%s", time.Now().UTC().Format("20060102T150405.000000000"), s.refused, events.ExtHTTP)
	dir := filepath.Join(s.dir, RefusedDir)
	tmp := filepath.Join(dir, "."+name+".tmp")
	if writeFile(tmp, d, false) != nil {
		return
	}
	if os.Rename(tmp, filepath.Join(dir, name)) != nil {
		_ = os.Remove(tmp)
		return
	}
	s.refused++
	s.refusedBytes += int64(len(d.Body)) + 512
}

// Dropped is how many refused deliveries were not kept (over MaxRefused
// or MaxRefusedBytes).
func (s *Store) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Read reads one committed capture.
func (s *Store) Read(name string) (events.Delivery, error) {
	if !isCaptureName(name) {
		return events.Delivery{}, fmt.Errorf("%q is not a capture name", name)
	}
	f, err := os.Open(filepath.Join(s.dir, name))
	if err != nil {
		return events.Delivery{}, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, events.MaxCaptureFile+1))
	if err != nil {
		return events.Delivery{}, err
	}
	if len(raw) > events.MaxCaptureFile {
		return events.Delivery{}, fmt.Errorf("%s is larger than %d MiB", name, events.MaxCaptureFile>>20)
	}
	d, err := events.ParseHTTPRequest(name, raw)
	if err != nil {
		return events.Delivery{}, err
	}
	d.Name = name
	return d, nil
}

// Original reads the event at position of a committed capture: the
// events.ReceiverOptions.Original of a Receiver over this store.
func (s *Store) Original(name string, position int) ([]byte, error) {
	s.mu.Lock()
	body, ok := s.pending[name]
	s.mu.Unlock()
	if ok {
		return events.EventAt(body, position)
	}
	d, err := s.Read(name)
	if err != nil {
		return nil, err
	}
	return events.EventAt(d.Body, position)
}

// ErrReplay matches a capture that cannot be replayed after a restart.
var ErrReplay = errors.New("replaying the capture directory")

// Replay feeds the committed captures the state of r does not hold yet
// (those numbered after r.Last; every one when the state is new), in
// order, to r: the state a restarted receiver goes on from. A file that
// was not written by this receiver (no receipt header) is skipped and
// listed in Foreign. It returns how many were replayed.
func (s *Store) Replay(r *events.Receiver) (int, error) {
	after := int64(0)
	if last := r.Last(); last != "" {
		after = captureNumber(last)
		s.setNext(last)
	}
	n := 0
	for _, v := range s.own {
		if v <= after {
			continue
		}
		name := captureName(v)
		d, err := s.Read(name)
		if err != nil {
			return n, fmt.Errorf("%w: %s: %w (move it out of the directory to start without it)", ErrReplay, name, err)
		}
		if d.Header.Get(HeaderReceived) == "" {
			s.mu.Lock()
			s.foreign = append(s.foreign, name)
			s.mu.Unlock()
			continue
		}
		r.Replay(d)
		s.setNext(name)
		n++
	}
	s.own = nil
	if err := r.Flush(); err != nil {
		return n, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	return n, nil
}

// encodeHead is a delivery's request line and headers, as captured.
func encodeHead(d events.Delivery) []byte {
	var b bytes.Buffer
	if len(d.Body) <= oneWrite {
		b.Grow(1024 + len(d.Body)) // room for the body after it (writeCapture)
	}
	b.WriteString("POST /webhook HTTP/1.1\r\n")
	keys := make([]string, 0, len(d.Header))
	for k := range d.Header {
		if !dropHeaders[http.CanonicalHeaderKey(k)] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range d.Header[k] {
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(cleanHeaderValue(v))
			b.WriteString("\r\n")
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(d.Body))
	return b.Bytes()
}

// cleanHeaderValue keeps a value on its line (net/http already refuses
// CR and LF in received headers; this guards a Delivery built by hand).
func cleanHeaderValue(v string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
}

// writeFile writes a delivery as a raw HTTP request to a new file;
// durable adds the fsync.
func writeFile(path string, d events.Delivery, durable bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("storing the capture: %w", err)
	}
	return fillFile(f, path, d, durable)
}

// fillFile writes a delivery as a raw HTTP request to the new file f at
// path and closes it; durable adds the fsync. On an error f is removed.
func fillFile(f *os.File, path string, d events.Delivery, durable bool) error {
	err := writeCapture(f, d)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("storing the capture: %w", err)
	}
	return nil
}

// oneWrite is the largest body written in one write with its head (a
// copy of it); a larger one is written as it is, after the head.
const oneWrite = 256 << 10

// writeCapture writes d's head and body to w.
func writeCapture(w io.Writer, d events.Delivery) error {
	head := encodeHead(d)
	if len(d.Body) <= oneWrite {
		_, err := w.Write(append(head, d.Body...))
		return err
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	_, err := w.Write(d.Body)
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("storing the capture: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("storing the capture: fsync of the directory: %w", err)
	}
	return nil
}
