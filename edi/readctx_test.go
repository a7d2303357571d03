package edi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestReadAllContextLimit(t *testing.T) {
	ctx := context.Background()
	data, err := ReadAllContext(ctx, strings.NewReader("0123456789"), 10)
	require.NoError(t, err)
	require.Equal(t, "0123456789", string(data))

	_, err = ReadAllContext(ctx, strings.NewReader("0123456789A"), 10)
	var se *SizeError
	require.ErrorAs(t, err, &se)
	require.Equal(t, SizeError{Size: -1, Limit: 10}, *se)
	require.EqualError(t, err, "the input holds more than 10 B, the most that is read for parsing")

	big := bytes.Repeat([]byte("UNH'"), 300000) // past several doublings of the buffer
	data, err = ReadAllContext(ctx, bytes.NewReader(big), 0)
	require.NoError(t, err)
	require.True(t, bytes.Equal(big, data))
	_, err = ReadAllContext(ctx, bytes.NewReader(big), int64(len(big)-1))
	require.ErrorAs(t, err, &se)
}

// blockingReader blocks in Read until released, and says when a Read
// began.
type blockingReader struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingReader) Read([]byte) (int, error) {
	close(b.entered)
	<-b.release
	return 0, io.EOF
}

// TestReadAllContextCancel: a read blocked in Read returns the context's
// error once the context is done, not when the reader returns; a done
// context reads nothing.
func TestReadAllContextCancel(t *testing.T) {
	r := &blockingReader{entered: make(chan struct{}), release: make(chan struct{})}
	defer close(r.release)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := ReadAllContext(ctx, r, 0)
		got <- err
	}()
	<-r.entered
	cancel()
	select {
	case err := <-got:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("ReadAllContext waited for the blocked Read, not for the context")
	}

	_, err := ReadAllContext(ctx, strings.NewReader("x"), 0)
	require.ErrorIs(t, err, context.Canceled, "a done context reads nothing")
}

// TestReadAllContextWakesPipe: cancelling a read of an *os.File pipe
// (here one whose writer holds it open and sends nothing) wakes the
// abandoned read at once: its goroutine ends, and what is written
// afterwards stays in the pipe instead of going to a goroutine nobody
// waits for.
func TestReadAllContextWakesPipe(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	defer r.Close()
	_, err = w.Write([]byte("UNB+"))
	require.NoError(t, err)
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := ReadAllContext(ctx, r, 0)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block in the read (the test holds either way)
	cancel()
	require.ErrorIs(t, <-got, context.Canceled)
	requireGoroutines(t, before, "the abandoned read of the pipe")
	_, err = w.Write([]byte("UNH+"))
	require.NoError(t, err)
	require.NoError(t, r.SetReadDeadline(time.Now().Add(10*time.Second))) // ReadAllContext left it in the past
	buf := make([]byte, 8)
	n, err := r.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "UNH+", string(buf[:n]))
}

func TestOpenFileContext(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	name := filepath.Join(dir, "f.edi")
	data := generateOrders(mapMin+100, "\n")
	require.NoError(t, os.WriteFile(name, data, 0o600))
	f, err := OpenFileContext(ctx, name, 0)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, f.Bytes()))
	require.NoError(t, f.Close())

	_, err = OpenFileContext(ctx, name, int64(len(data)-1))
	var se *SizeError
	require.ErrorAs(t, err, &se)
	require.Equal(t, SizeError{Name: name, Size: int64(len(data)), Limit: int64(len(data) - 1)}, *se)
	require.ErrorContains(t, err, fmt.Sprintf("f.edi is %d bytes, more than %d bytes, the most that is read for parsing", len(data), len(data)-1),
		"sizes that round alike are said in bytes")
	_, err = OpenFileContext(ctx, name, 100<<10)
	require.ErrorContains(t, err, "f.edi is 256 KiB, more than 100 KiB, the most that is read for parsing")

	_, err = OpenFileContext(ctx, dir, 0)
	require.ErrorContains(t, err, "is a directory")
	_, err = OpenFileContext(ctx, filepath.Join(dir, "missing"), 0)
	require.ErrorIs(t, err, os.ErrNotExist)

	// A device that never ends is cut off at the limit, not read forever.
	_, err = OpenFileContext(ctx, "/dev/zero", 1<<20)
	require.ErrorAs(t, err, &se)
	require.Equal(t, SizeError{Name: "/dev/zero", Size: -1, Limit: 1 << 20}, *se)
	require.EqualError(t, err, "/dev/zero holds more than 1 MiB, the most that is read for parsing")
}

// TestOpenFileContextFIFO: a FIFO is read to its end; opening one that
// has no writer (open blocks) and reading one whose writer sends nothing
// both stop when the context is done.
func TestOpenFileContextFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	wrote := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			wrote <- err
			return
		}
		_, err = io.WriteString(w, "UNH+1+ORDERS:D:96A:UN'")
		wrote <- errors.Join(err, w.Close())
	}()
	f, err := OpenFileContext(context.Background(), fifo, 0)
	require.NoError(t, err)
	require.NoError(t, <-wrote)
	require.Equal(t, "UNH+1+ORDERS:D:96A:UN'", string(f.Bytes()))

	// No writer: open waits for one. The context ends the wait; the
	// abandoned open, once a writer comes, closes the FIFO unread.
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := OpenFileContext(ctx, fifo, 0)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block in open (the test holds either way)
	cancel()
	requireWithin(t, got, context.Canceled, "open waiting for a writer")
	w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0) // the waiting open counts as a reader
	require.NoError(t, err)
	requireReaderGone(t, w)

	// A writer that holds the FIFO open and sends nothing: the read is
	// woken (its goroutine ends before anything is written) and the FIFO
	// closed.
	before := goleak.IgnoreCurrent()
	opened := make(chan *os.File, 1)
	go func() {
		w, _ := os.OpenFile(fifo, os.O_WRONLY, 0)
		opened <- w
	}()
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		_, err := OpenFileContext(ctx, fifo, 0)
		got <- err
	}()
	w = <-opened // the reader has opened it
	require.NotNil(t, w)
	time.Sleep(20 * time.Millisecond) // let it block in the read
	cancel()
	requireWithin(t, got, context.Canceled, "read of a FIFO whose writer sends nothing")
	requireGoroutines(t, before, "the abandoned read of the FIFO")
	requireReaderGone(t, w)
}

// requireGoroutines waits at most 10 s until no goroutine runs but those
// that ran at before (goleak.IgnoreCurrent): only the goroutines started
// since count, not the whole process's (the count of all goroutines
// rose and fell with other tests' leftovers and failed 1 run in 3).
func requireGoroutines(t *testing.T, before goleak.Option, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := goleak.Find(before) // retries for a while itself
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: its goroutine still runs: %v", what, err)
		}
	}
}

// requireWithin waits at most 10 s for an error matching want.
func requireWithin(t *testing.T, got <-chan error, want error, what string) {
	t.Helper()
	select {
	case err := <-got:
		require.ErrorIs(t, err, want, what)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still waiting after the context was cancelled", what)
	}
}

// requireReaderGone writes to a FIFO until the write fails because no
// reader has it open (EPIPE), and closes w: the abandoned reading
// goroutine has closed its end.
func requireReaderGone(t *testing.T, w *os.File) {
	t.Helper()
	defer w.Close()
	require.Eventually(t, func() bool {
		_ = w.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		_, err := w.Write([]byte("x"))
		return errors.Is(err, syscall.EPIPE)
	}, 10*time.Second, 10*time.Millisecond, "the abandoned read still holds the FIFO open")
}

// TestOpenRegularSwapped: a name that was a regular file when looked at
// and is a FIFO when opened is opened without waiting for a writer and
// handed back to be read as a stream.
func TestOpenRegularSwapped(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	type result struct {
		f   *File
		ok  bool
		err error
	}
	got := make(chan result, 1)
	go func() {
		f, ok, err := openRegular(context.Background(), fifo, 1<<20)
		got <- result{f, ok, err}
	}()
	select {
	case r := <-got:
		require.NoError(t, r.err)
		require.False(t, r.ok, "not a regular file any more")
		require.Nil(t, r.f)
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // let the open end
		}
		t.Fatal("openRegular waited for the FIFO's writer")
	}
}

// endless is a reader that never ends (like /dev/zero).
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// TestReadLimitedPieces: input read in pieces is joined byte for byte, at
// and around the limit and the piece sizes, however the reader splits it.
func TestReadLimitedPieces(t *testing.T) {
	var stop atomic.Bool
	data := make([]byte, 300000)
	for k := range data {
		data[k] = byte(k * 7)
	}
	for _, n := range []int{0, 1, 511, 512, 513, 1024, 4096, 99999, 300000} {
		for _, hint := range []int{0, 512, 1000, 4096} {
			for name, r := range map[string]io.Reader{
				"whole": bytes.NewReader(data[:n]),
				"half":  iotest.HalfReader(bytes.NewReader(data[:n])),
				"bytes": iotest.OneByteReader(bytes.NewReader(data[:min(n, 5000)])),
			} {
				want := data[:n]
				if name == "bytes" {
					want = data[:min(n, 5000)]
				}
				got, err := readLimited(r, int64(len(want)), hint, &stop)
				require.NoError(t, err, "n=%d hint=%d %s", n, hint, name)
				require.True(t, bytes.Equal(want, got), "n=%d hint=%d %s", n, hint, name)
				if len(want) > 0 {
					_, err = readLimited(bytes.NewReader(want), int64(len(want)-1), hint, &stop)
					var se *SizeError
					require.ErrorAs(t, err, &se, "n=%d hint=%d: one byte over the limit", n, hint)
				}
			}
		}
	}
}

// TestReadLimitedMemory: refusing an endless input at the limit allocates
// the limit, not the limit plus every buffer a doubling buffer outgrew
// (/dev/zero at the 1 GiB default took 2.1 GB); input that fits costs
// its pieces and the joined copy, twice its size.
func TestReadLimitedMemory(t *testing.T) {
	const limit = 64 << 20
	var err error
	n := allocated(func() { _, err = ReadAllContext(context.Background(), endless{}, limit) })
	var se *SizeError
	require.ErrorAs(t, err, &se)
	require.Less(t, n, uint64(limit+limit/8), "allocated %d MiB to refuse %d MiB", n>>20, limit>>20)

	var data []byte
	n = allocated(func() { data, err = ReadAllContext(context.Background(), io.LimitReader(endless{}, limit-1000), limit) })
	require.NoError(t, err)
	require.Len(t, data, limit-1000)
	require.Less(t, n, uint64(2*limit+limit/8), "allocated %d MiB to read %d MiB", n>>20, limit>>20)
}
