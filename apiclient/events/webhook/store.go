package webhook

import (
	"bufio"
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
	HeaderReceived = "X-B2bx-Received" // RFC 3339 receipt time, nanoseconds
	HeaderRefused  = "X-B2bx-Refused"  // why a refused delivery was refused
	HeaderRemote   = "X-B2bx-Remote"   // the peer address
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

// Store keeps captured deliveries in a directory. Commit is durable
// (temporary file, fsync, rename, directory fsync) and atomic: a crash
// leaves either the whole capture or none. Safe for concurrent use.
type Store struct {
	dir string

	mu           sync.Mutex
	next         int64
	refused      int
	refusedBytes int64
	dropped      int
	// maxRefused and maxRefusedBytes are MaxRefused and MaxRefusedBytes
	// (tests lower them).
	maxRefused      int
	maxRefusedBytes int64
}

// OpenStore opens (creating it, mode 0700) a capture directory and
// removes temporary files a crash left behind.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, RefusedDir), 0o700); err != nil {
		return nil, fmt.Errorf("capture directory: %w", err)
	}
	s := &Store{dir: dir, next: 1, maxRefused: MaxRefused, maxRefusedBytes: MaxRefusedBytes}
	names, err := s.Names()
	if err != nil {
		return nil, err
	}
	if n := len(names); n > 0 {
		v, _ := strconv.ParseInt(strings.TrimSuffix(names[n-1], events.ExtHTTP), 10, 64)
		s.next = v + 1
	}
	for _, d := range []string{dir, filepath.Join(dir, RefusedDir)} {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("capture directory: %w", err)
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".tmp") {
				_ = os.Remove(filepath.Join(d, e.Name()))
			} else if d != dir && strings.HasSuffix(e.Name(), events.ExtHTTP) {
				s.refused++
				if info, err := e.Info(); err == nil {
					s.refusedBytes += info.Size()
				}
			}
		}
	}
	return s, nil
}

// Dir is the capture directory.
func (s *Store) Dir() string { return s.dir }

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

// Commit stores a delivery durably under the next name and returns it.
// d.Header must hold the request's headers (see Capture).
func (s *Store) Commit(d events.Delivery) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := fmt.Sprintf("%0*d%s", nameDigits, s.next, events.ExtHTTP)
	if err := writeAtomic(s.dir, name, encode(d), true); err != nil {
		return "", err
	}
	s.next++
	return name, nil
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
	data := encode(d)
	if writeAtomic(filepath.Join(s.dir, RefusedDir), name, data, false) == nil {
		s.refused++
		s.refusedBytes += int64(len(data))
	}
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
	d, err := s.Read(name)
	if err != nil {
		return nil, err
	}
	return events.EventAt(d.Body, position)
}

// ErrReplay matches a capture that cannot be replayed after a restart.
var ErrReplay = errors.New("replaying the capture directory")

// Replay feeds every committed capture, in order, to r: the state a
// restarted receiver goes on from. It returns how many were replayed.
func (s *Store) Replay(r *events.Receiver) (int, error) {
	names, err := s.Names()
	if err != nil {
		return 0, err
	}
	for i, n := range names {
		d, err := s.Read(n)
		if err != nil {
			return i, fmt.Errorf("%w: %s: %w", ErrReplay, n, err)
		}
		r.Replay(d)
	}
	return len(names), nil
}

// encode writes a delivery as a raw HTTP request.
func encode(d events.Delivery) []byte {
	var b bytes.Buffer
	b.Grow(len(d.Body) + 512)
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
	b.Write(d.Body)
	return b.Bytes()
}

// cleanHeaderValue keeps a value on its line (net/http already refuses
// CR and LF in received headers; this guards a Delivery built by hand).
func cleanHeaderValue(v string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
}

// writeAtomic writes data to dir/name through a temporary file and a
// rename; durable adds the fsyncs.
func writeAtomic(dir, name string, data []byte, durable bool) error {
	tmp := filepath.Join(dir, "."+name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("storing the capture: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	_, err = w.Write(data)
	if err == nil {
		err = w.Flush()
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("storing the capture: %w", err)
	}
	if durable {
		return syncDir(dir)
	}
	return nil
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
