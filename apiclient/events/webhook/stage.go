package webhook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/nutrab2b/b2bx/apiclient/events"
)

// A capture is first written to a temporary file and fsynced (staged),
// then renamed to its name and the directory fsynced (committed): only
// then is its delivery answered. Staging needs no name, so the handler
// stages a delivery while the committer decides it, and the file it
// stages into was made ahead (a spare): making a file is the dearest
// step of a small capture on some file systems, and off the path of an
// answer it costs the sender nothing.

// spareFiles is how many spares the Store keeps ready.
const spareFiles = 4

// spare is an empty temporary file made ahead, open for writing.
type spare struct {
	f    *os.File
	path string
}

// prepare makes spares until spareFiles are ready (or being made).
func (s *Store) prepare() {
	for s.prepareOne() {
	}
}

// prepareOne makes one spare if fewer than spareFiles are ready (or
// being made), and reports whether it did.
func (s *Store) prepareOne() bool {
	s.mu.Lock()
	if s.closed || len(s.spares)+s.making >= spareFiles {
		s.mu.Unlock()
		return false
	}
	s.making++
	s.mu.Unlock()
	sp, err := s.newSpare()
	s.mu.Lock()
	s.making--
	keep := err == nil && !s.closed
	if keep {
		s.spares = append(s.spares, sp)
	}
	s.mu.Unlock()
	if err == nil && !keep {
		sp.drop()
	}
	return keep
}

// newSpare makes a new, empty temporary file (.spare-PID-N.tmp: the next
// OpenStore removes it if it is left behind).
func (s *Store) newSpare() (spare, error) {
	for range 100 {
		s.mu.Lock()
		s.spareSeq++
		n := s.spareSeq
		s.mu.Unlock()
		path := filepath.Join(s.dir, fmt.Sprintf(".spare-%d-%d.tmp", os.Getpid(), n))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return spare{}, fmt.Errorf("storing the capture: %w", err)
		}
		return spare{f: f, path: path}, nil
	}
	return spare{}, errors.New("storing the capture: no free temporary file name")
}

func (sp spare) drop() {
	_ = sp.f.Close()
	_ = os.Remove(sp.path)
}

// takeSpare returns a spare, or a new file when none is ready.
func (s *Store) takeSpare() (spare, error) {
	s.mu.Lock()
	if n := len(s.spares); n > 0 {
		sp := s.spares[0]
		s.spares = append(s.spares[:0], s.spares[1:]...)
		s.mu.Unlock()
		return sp, nil
	}
	s.mu.Unlock()
	return s.newSpare()
}

// stage writes d durably (written and fsynced) to a temporary file and
// returns its path: commitStaged gives it its name.
func (s *Store) stage(d events.Delivery) (string, error) {
	sp, err := s.takeSpare()
	if err != nil {
		return "", err
	}
	if err := fillFile(sp.f, sp.path, d, true); err != nil {
		return "", err
	}
	return sp.path, nil
}

// stageAll stages the deliveries whose tmps are empty, at once (at most
// commitWriters at a time). On an error it removes every file in tmps.
func (s *Store) stageAll(ds []events.Delivery, tmps []string) error {
	errs := make([]error, len(ds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, commitWriters)
	for i := range ds {
		if tmps[i] != "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			tmps[i], errs[i] = s.stage(ds[i])
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		removeAll(tmps)
		return err
	}
	return nil
}

// commitStaged renames the staged files tmps to names, in order, and
// fsyncs the directory: the deliveries are committed. On an error none
// is kept: every file of the batch is removed.
func (s *Store) commitStaged(ds []events.Delivery, tmps, names []string) error {
	if len(ds) == 0 {
		return nil
	}
	s.mu.Lock()
	s.pending = make(map[string][]byte, len(ds))
	for i, d := range ds {
		s.pending[names[i]] = d.Body
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.pending = nil
		s.mu.Unlock()
	}()
	finals := make([]string, len(names))
	for i, name := range names {
		finals[i] = filepath.Join(s.dir, name)
		if err := rename(tmps[i], finals[i]); err != nil {
			removeAll(finals[:i])
			removeAll(tmps[i:])
			return fmt.Errorf("storing the capture: %w", err)
		}
	}
	if err := s.syncDir(); err != nil {
		removeAll(finals)
		return err
	}
	s.setNext(names[len(names)-1])
	return nil
}

// rename renames a staged file to its name. NextNames found the name
// free (an Lstat), so os.Rename's own Lstat (it refuses to replace a
// directory) is not repeated.
func rename(from, to string) error {
	for {
		err := syscall.Rename(from, to)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
		}
	}
}

func removeAll(paths []string) {
	for _, p := range paths {
		if p != "" {
			_ = os.Remove(p)
		}
	}
}

// discard removes a staged file that was not committed (nothing when it
// was renamed or never made).
func (s *Store) discard(tmp string) {
	if tmp != "" {
		_ = os.Remove(tmp)
	}
}

// syncDir fsyncs the capture directory (through the file kept open for
// it: opening it again for each commit would cost more calls).
func (s *Store) syncDir() error {
	s.mu.Lock()
	f := s.dirf
	s.mu.Unlock()
	if f == nil {
		return syncDir(s.dir)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("storing the capture: fsync of the directory: %w", err)
	}
	return nil
}

// Close removes the spares and closes the directory; a Store is not used
// after it (Handler.Close closes its Store).
func (s *Store) Close() error {
	s.mu.Lock()
	spares, f := s.spares, s.dirf
	s.spares, s.dirf, s.closed = nil, nil, true
	s.mu.Unlock()
	for _, sp := range spares {
		sp.drop()
	}
	if f != nil {
		return f.Close()
	}
	return nil
}
