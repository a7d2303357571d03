package edi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/nutrab2b/b2bx/internal/human"
)

// DefaultMaxInput is the input size OpenFileContext and ReadAllContext
// take when the caller gives no limit: 1 GiB. Real interchanges are far
// smaller (the Partner API takes 16 MiB); a larger input is most likely
// not EDIFACT at all (a disk image, /dev/zero).
const DefaultMaxInput = 1 << 30

// MaxInput is the largest limit that can be given: Parse indexes inputs
// below 4 GiB (see ErrTooLarge).
const MaxInput = 1<<32 - 1

// SizeError says an input is larger than the limit its reader was given.
type SizeError struct {
	Name  string // the file, or "" for a stream
	Size  int64  // the input's size when it is known (a regular file), else -1: more than Limit was there
	Limit int64
}

func (e *SizeError) Error() string {
	what := "the input"
	if e.Name != "" {
		what = e.Name
	}
	if e.Size < 0 {
		return fmt.Sprintf("%s holds more than %s, the most that is read for parsing", what, human.BytesShort(e.Limit))
	}
	size, limit := human.BytesShort(e.Size), human.BytesShort(e.Limit)
	if size == limit { // rounded alike: say the bytes
		size, limit = fmt.Sprintf("%d bytes", e.Size), fmt.Sprintf("%d bytes", e.Limit)
	}
	return fmt.Sprintf("%s is %s, more than %s, the most that is read for parsing", what, size, limit)
}

// limitOf is limit, or DefaultMaxInput when it is not positive, and at
// most MaxInput.
func limitOf(limit int64) int64 {
	if limit <= 0 {
		return DefaultMaxInput
	}
	return min(limit, MaxInput)
}

// OpenFileContext is OpenFile for a file the caller does not control. A
// regular file larger than limit (0: DefaultMaxInput) is refused with a
// *SizeError before anything is read or mapped. Any other file (a FIFO,
// a pipe, a device such as /dev/zero) is read, and refused once more than
// limit bytes came. Opening and reading stop when ctx is done:
// OpenFileContext then returns ctx's error at once and abandons the read.
// An abandoned read ends by itself: a pipe or FIFO is woken at once (a
// read deadline), a device at its next read; an open still waiting for a
// FIFO's writer closes the FIFO unread once a writer comes.
func OpenFileContext(ctx context.Context, name string, limit int64) (*File, error) {
	limit = limitOf(limit)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(name) // does not block on a FIFO, unlike open
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &os.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	if fi.Mode().IsRegular() {
		if f, ok, err := openRegular(ctx, name, limit); ok {
			return f, err
		}
		// Replaced by something else since the Stat: read it as a stream.
	}
	data, err := readContext(ctx, func() (io.Reader, func(), error) {
		f, err := os.Open(name) // may wait for a FIFO's writer: on the reading goroutine
		if err != nil {
			return nil, nil, err
		}
		return f, func() { _ = f.Close() }, nil
	}, limit, 64<<10)
	if err != nil {
		var se *SizeError
		if errors.As(err, &se) {
			se.Name = name
		}
		return nil, err
	}
	return &File{data: data}, nil
}

// openRegular opens name, a regular file when it was looked at: mapped
// when it is large, else read. It opens without waiting should the file
// have been replaced by a FIFO meanwhile, and then reports ok false.
func openRegular(ctx context.Context, name string, limit int64) (_ *File, ok bool, _ error) {
	f, err := os.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, true, err
	}
	defer f.Close() // a mapping does not need the descriptor; an abandoned read fails on it
	fi, err := f.Stat()
	if err != nil {
		return nil, true, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	if fi.Size() > limit {
		return nil, true, &SizeError{Name: name, Size: fi.Size(), Limit: limit}
	}
	if fi.Size() >= mapMin {
		if data, err := mapFile(f, int(fi.Size())); err == nil {
			return &File{data: data, mapped: true}, true, nil
		}
		// Not mappable (some network or special file systems): read it.
	}
	data, err := readContext(ctx, func() (io.Reader, func(), error) { return f, func() {}, nil }, limit, int(fi.Size())+512)
	if err != nil {
		var se *SizeError
		if errors.As(err, &se) {
			se.Name = name // it grew past the limit while read
		}
		return nil, true, err
	}
	return &File{data: data}, true, nil
}

// ReadAllContext reads r to its end, at most limit bytes (0:
// DefaultMaxInput; more is refused with a *SizeError). When ctx is done
// first it returns ctx's error at once and abandons the read: an *os.File
// pipe or FIFO is woken by a read deadline (which stays set), any other
// reader ends its read in its own time.
func ReadAllContext(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	return readContext(ctx, func() (io.Reader, func(), error) { return r, func() {}, nil }, limitOf(limit), 64<<10)
}

// errAbandoned ends a read that nobody waits for any more.
var errAbandoned = errors.New("edi: read abandoned")

// readContext opens and reads an input on a goroutine, so that waiting
// for it can stop when ctx is done; the goroutine calls the close func
// open returned when it is done. The first piece read is hint bytes.
func readContext(ctx context.Context, open func() (io.Reader, func(), error), limit int64, hint int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		data []byte
		err  error
	}
	var (
		stop   atomic.Bool
		opened atomic.Value // the reader once open returned it
	)
	done := make(chan result, 1)
	go func() {
		r, closeIt, err := open()
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer closeIt()
		opened.Store(&r)
		data, err := readLimited(r, limit, hint, &stop) // stops at once if given up while opening
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		stop.Store(true)
		if r, ok := opened.Load().(*io.Reader); ok {
			if f, ok := (*r).(interface{ SetReadDeadline(time.Time) error }); ok {
				_ = f.SetReadDeadline(time.Now()) // wakes a read of a pipe or FIFO
			}
		}
		return nil, ctx.Err()
	}
}

// maxChunk bounds the pieces readLimited reads a stream into.
const maxChunk = 64 << 20

// readLimited reads r to its end, refusing more than limit bytes, and
// stops between reads once stop is set. It reads into pieces, the first
// of hint bytes, each next twice as large (at most maxChunk), and joins
// them once at the end: an input refused at the limit (/dev/zero) costs
// the limit, not the limit plus the buffers a doubling buffer outgrew
// (2.1 GB for 1 GiB), and one that fits costs twice its size while the
// pieces are joined, no more. Input that fits the first piece (a regular
// file, whose size is the hint) is not copied.
func readLimited(r io.Reader, limit int64, hint int, stop *atomic.Bool) ([]byte, error) {
	buf := make([]byte, 0, min(int64(max(hint, 512)), limit+1))
	var full [][]byte // the pieces before buf, each filled
	var total int64   // their bytes
	for {
		if stop.Load() {
			return nil, errAbandoned
		}
		if len(buf) == cap(buf) {
			full, total = append(full, buf), total+int64(len(buf))
			buf = make([]byte, 0, min(2*int64(cap(buf)), maxChunk, limit+1-total))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if total+int64(len(buf)) > limit {
			return nil, &SizeError{Size: -1, Limit: limit}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(full) == 0 {
		return buf, nil
	}
	out := make([]byte, 0, total+int64(len(buf)))
	for _, p := range full {
		out = append(out, p...)
	}
	return append(out, buf...), nil
}
