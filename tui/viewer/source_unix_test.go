//go:build unix

package viewer

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOpenContextStops: a path a person typed may name a FIFO nobody
// writes: opening it stops when the context is done instead of blocking
// the viewer's open for ever.
func TestOpenContextStops(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.edi")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := OpenContext(ctx, fifo)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // the open is waiting for a writer
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("OpenContext did not stop when its context was cancelled")
	}
}

// TestOpenContextRefusesDevices: :view /dev/zero is refused at once,
// without reading up to the input limit (it used to read a GiB first and
// keep it).
func TestOpenContextRefusesDevices(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/null"} {
		_, err := OpenContext(context.Background(), dev)
		require.ErrorIs(t, err, ErrNotRegular, dev)
		require.ErrorContains(t, err, "cannot read "+dev+": not a regular file")
	}
}
