//go:build unix

package orders

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSentFileNeverReadsAFIFO: without a kept copy, the file an upload
// was sent from is read only while it is a regular file; a FIFO put in
// its place is not opened (the read would wait for a writer for ever).
// A stored payload replaced by a FIFO is reported, not waited for.
func TestSentFileNeverReadsAFIFO(t *testing.T) {
	e, po, ids := answered(t)
	l, err := LoadLinked(t.Context(), e.store, testConn, nil)
	require.NoError(t, err)
	kept, err := SentFile(e.store, l.Uploads[0])
	require.NoError(t, err)
	require.NoError(t, os.Remove(kept))
	require.NoError(t, os.Remove(po))
	require.NoError(t, syscall.Mkfifo(po, 0o600))

	done := make(chan error, 1)
	go func() {
		_, err := SentFile(e.store, l.Uploads[0])
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrSentUnknown)
	case <-time.After(10 * time.Second):
		t.Fatal("SentFile waited for the FIFO's writer")
	}

	d, _ := l.Delivery(ids["ORDRSP"])
	require.NoError(t, os.Remove(d.Stored.Path))
	require.NoError(t, syscall.Mkfifo(d.Stored.Path, 0o600))
	go func() {
		fresh, err := LoadLinked(t.Context(), e.store, testConn, nil)
		if err == nil {
			fd, _ := fresh.Delivery(ids["ORDRSP"])
			err = fd.Err
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorContains(t, err, "is no longer a regular file")
	case <-time.After(10 * time.Second):
		t.Fatal("LoadLinked waited for a FIFO in the store")
	}
}
