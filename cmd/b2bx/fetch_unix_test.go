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
)

// TestFetchOutSpecialTarget: a FIFO or a link to /dev/zero at the --out
// target name is refused before claiming, without blocking or reading it.
func TestFetchOutSpecialTarget(t *testing.T) {
	data := ediPayload(32 << 10)
	for _, tc := range []struct {
		name  string
		plant func(dst string) error
		what  string
	}{
		{"out target is a FIFO", func(dst string) error { return syscall.Mkfifo(dst, 0o600) }, "FIFO"},
		{"out target links to /dev/zero", func(dst string) error { return os.Symlink("/dev/zero", dst) }, "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimEnv(t)
			id := s.add(t, "ORDRSP", data, partnersim.PayloadFault{})
			out := t.TempDir()
			require.NoError(t, tc.plant(filepath.Join(out, id+".edi")))
			done := make(chan struct{})
			var code int
			var errOut string
			go func() {
				defer close(done)
				code, _, errOut = s.run(t, "", "fetch", id, "--ack", "--out", out)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("fetch blocked on the special file at the --out target")
			}
			require.Equal(t, exitStorage, code, errOut)
			require.Contains(t, errOut, tc.what)
			require.Contains(t, errOut, "move it away or choose another --out directory")
			require.Zero(t, s.sim.RequestCount(partnersim.EndpointClaim, ""), "refused before claiming")
		})
	}
}
