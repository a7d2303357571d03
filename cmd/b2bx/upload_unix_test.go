//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// TestUploadRefusesSpecialFiles: a FIFO (opening it would wait for a
// writer) and a link to /dev/zero (it never ends) are refused at once; a
// link to a regular file is read.
func TestUploadRefusesSpecialFiles(t *testing.T) {
	s := newSimEnv(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "orders.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.edi")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for _, tc := range []struct{ path, what string }{{fifo, "FIFO"}, {zero, "device"}} {
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			defer close(done)
			code, _, errOut = s.run(t, "", "upload", tc.path)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("upload blocked on %s", tc.path)
		}
		require.Equal(t, exitUsage, code, errOut)
		require.Contains(t, errOut, tc.what)
		require.Contains(t, errOut, "upload reads only regular files")
	}
	require.Zero(t, s.sim.RequestCount(partnersim.EndpointInbox, ""), "nothing sent")
	require.Empty(t, s.history(t))

	link := filepath.Join(dir, "po-link.edi")
	require.NoError(t, os.Symlink(orderstest.WriteFile(t, "po.edi", orderstest.Orders("REF9", 1, "PO-9")), link))
	code, _, errOut := s.run(t, "", "upload", link)
	require.Equal(t, exitOK, code, errOut)
}
