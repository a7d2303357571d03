//go:build unix

package credentials

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLoadRefusesFIFOWithoutBlocking: B2BX_CONFIG=FIFO used to hang.
func TestLoadRefusesFIFOWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	var err error
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() { _, err := Load(fifo); done <- err }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		// Unblock the reader so the goroutine ends, then fail.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_ = w.Close()
		}
		t.Fatal("Load blocked on a FIFO")
	}
	require.ErrorIs(t, err, ErrNotRegular)
	require.ErrorContains(t, err, "named pipe (FIFO)")

	f, err := Load(filepath.Join(dir, "profiles.toml"))
	require.NoError(t, err)
	require.NoError(t, f.Put(validProfile()))
	f.Path = fifo
	require.ErrorIs(t, f.Save(), ErrNotRegular, "Save re-reads the file first, and must not block either")

	if _, err := os.Stat("/dev/null"); err == nil {
		_, err = Load("/dev/null")
		require.ErrorIs(t, err, ErrNotRegular)
		require.ErrorContains(t, err, "device")
	}
}
