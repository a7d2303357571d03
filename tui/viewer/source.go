package viewer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ErrClosed is what reading a closed Source returns: its mapping is gone,
// so the view shows nothing from the file any more.
var ErrClosed = errors.New("the viewer was closed; open the file again to view it")

// Source is a parsed input the viewer shows, and the owner of the file's
// lifetime: a large file is memory-mapped (edi.OpenFile) and Close unmaps
// it. Every read of the bytes goes through read, which refuses after
// Close and turns a fault from a file shortened meanwhile into
// edi.ErrFileChanged (sticky: nothing derived from the file is trusted
// afterwards). A Source is used from the UI goroutine only.
type Source struct {
	name    string // sanitised, for the screen
	doc     *edi.Document
	file    *edi.File // nil when the bytes are not a mapped or read file
	verdict explain.Verdict
	closed  bool
	err     error // edi.ErrFileChanged once a read faulted
}

// ErrNotRegular is why the viewer refuses a device or a socket:
// /dev/zero would be read up to the input limit (a GiB held in memory)
// before being refused. The viewer shows files; a stream can be saved
// to one first.
var ErrNotRegular = errors.New("not a regular file but a device or a socket: the viewer opens files; save the data to a file first")

// Open is OpenContext without a deadline.
func Open(path string) (*Source, error) { return OpenContext(context.Background(), path) }

// OpenContext reads (or maps) the named file and parses it. The Source
// owns the file until Close. Parsing 16 MiB takes ~25 ms: the app calls
// it inside a tea.Cmd. A path named by a person may be anything: a
// device or socket is refused without reading it (ErrNotRegular), a file
// over edi.DefaultMaxInput before it is read, a FIFO read as a stream up
// to that much (the memory of a refused stream is handed back at once),
// and the open and the parse stop when ctx is done (edi.OpenFileContext,
// edi.ParseContext with its memory budget).
func OpenContext(ctx context.Context, path string) (*Source, error) {
	f, err := openRegular(ctx, path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %s: %w", termsafe.String(path), err)
	}
	var doc *edi.Document
	data := f.Bytes()
	err = edi.Guard(data, func() (err error) { // a mapped file shortened meanwhile is an error, not a crash
		doc, err = edi.ParseContext(ctx, data, edi.Options{})
		return err
	})
	if err != nil {
		_ = f.Close() // read-only: unmapping loses nothing
		return nil, fmt.Errorf("%s: %w", termsafe.String(path), err)
	}
	s := newSource(path, doc)
	s.file = f
	return s, nil
}

// openRegular opens path unless it is a device or a socket (a directory
// edi refuses with its own words).
func openRegular(ctx context.Context, path string) (*edi.File, error) {
	fi, err := os.Stat(path) // never blocks, unlike opening a FIFO
	if err != nil {
		return nil, err
	}
	if fi.Mode()&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket|os.ModeIrregular) != 0 {
		return nil, ErrNotRegular
	}
	f, err := edi.OpenFileContext(ctx, path, 0)
	var se *edi.SizeError
	if errors.As(err, &se) && !fi.Mode().IsRegular() {
		debug.FreeOSMemory() // a stream read up to the limit: do not keep its GiB
	}
	return f, err
}

// FromBytes parses data that stays in memory (a payload just downloaded
// and verified, say); name is shown in the header. data must not be
// modified while the Source is in use.
func FromBytes(name string, data []byte) (*Source, error) {
	doc, err := edi.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", termsafe.String(name), err)
	}
	return newSource(name, doc), nil
}

func newSource(name string, doc *edi.Document) *Source {
	return &Source{name: termsafe.String(name), doc: doc, verdict: explain.VerdictOf(doc)}
}

// Name is the input's name as shown (sanitised).
func (s *Source) Name() string { return s.name }

// Close releases the file (unmaps it). Afterwards nothing reads the bytes:
// views show that the viewer is closed. Safe to call more than once.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.file != nil {
		return s.file.Close()
	}
	return nil
}

// Err is why the Source can no longer be shown: ErrClosed after Close,
// edi.ErrFileChanged after the file was shortened; nil while usable.
func (s *Source) Err() error {
	if s.closed {
		return ErrClosed
	}
	return s.err
}

// read runs fn, which reads the file's bytes, unless the Source is closed
// or broken; a fault inside the bytes (a truncated mapping) becomes
// edi.ErrFileChanged and marks the Source broken for good.
func (s *Source) read(fn func()) error {
	if err := s.Err(); err != nil {
		return err
	}
	err := edi.Guard(s.doc.Data(), func() error {
		fn()
		return nil
	})
	if err != nil {
		s.err = err
	}
	return err
}
