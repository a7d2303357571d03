//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fix-and-resend story with the built binary: the shipped rejectable
// ORDERS goes in (202), the partner's CONTRL rejects it; the same bytes
// are then refused; the work copy fixed by the shipped EDITOR script goes
// with --fixes under a new key (202, and the partner accepts it); the
// ticket bundle of the rejected upload holds no secret.
func TestFixAndResendRejectedOrders(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--reply-delay", "100ms")
	de := s.conn(t, "acme-de")
	before := map[string]bool{}
	for _, id := range ids(listAll(t, w, s, de)) {
		before[id] = true
	}
	bad := filepath.Join(repoRoot, "testdata", "edifact", "orders_rejectable.edi")
	upload := func(file string, extra ...string) result {
		t.Helper()
		args := append(append([]string{"upload", "--json"}, s.connFlags(de)...), extra...)
		return w.b2bx(t, apiKeyEnv(de), "", append(args, file)...)
	}
	r := upload(bad)
	require.Equal(t, 0, r.code, "%s", r)
	var first uploadResult
	decodeJSON(t, r, &first)
	require.Equal(t, 202, first.HTTPStatus)

	var contrl string
	waitUntil(t, 20*time.Second, "the partner's CONTRL", func() bool {
		for _, e := range listAll(t, w, s, de) {
			if !before[e.DeliveryAttemptID] && e.MessageType == "CONTRL" {
				contrl = e.DeliveryAttemptID
				return true
			}
		}
		return false
	})
	fr := w.b2bx(t, apiKeyEnv(de), "", append([]string{"fetch", contrl, "--ack", "--json"}, s.connFlags(de)...)...)
	require.Equal(t, 0, fr.code, "%s", fr)
	var f fetchResult
	decodeJSON(t, fr, &f)
	p := w.b2bx(t, nil, "", "parse", f.Path)
	require.Contains(t, p.stdout, "4 rejected", "%s", p)
	require.Contains(t, p.stdout, "element 2:1: 12 Invalid value", "%s", p)

	r = upload(bad)
	require.Equal(t, 2, r.code, "%s", r)
	require.Contains(t, r.stderr, "identical to an upload the partner rejected")

	// What E does: a work copy, then $EDITOR on it.
	work := filepath.Join(t.TempDir(), "PO-4720-fix.edi")
	b, err := os.ReadFile(bad)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(work, b, 0o600))
	out, err := exec.Command(filepath.Join(repoRoot, "testdata", "fix-rejectable.sh"), work).CombinedOutput()
	require.NoError(t, err, "%s", out)

	r = upload(work, "--fixes", first.UploadID)
	require.Equal(t, 0, r.code, "%s", r)
	var fixed uploadResult
	decodeJSON(t, r, &fixed)
	require.Equal(t, 202, fixed.HTTPStatus)
	require.Equal(t, "4012345000009:PO-4720:orders:2", fixed.Key, "the fix gets a new key")
	waitUntil(t, 20*time.Second, "the partner's ORDRSP to the fix (sent only for an accepted interchange)", func() bool {
		for _, e := range listAll(t, w, s, de) {
			if !before[e.DeliveryAttemptID] && e.MessageType == "ORDRSP" {
				return true
			}
		}
		return false
	})

	dir := t.TempDir()
	br := w.b2bx(t, nil, "", "bundle", first.UploadID, "--connection", de.ConnectionID, "-o", dir)
	require.Equal(t, 0, br.code, "%s", br)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 2, "the bundle directory and its .tar.gz")
	w.requireNoSecretOnDisk(t)
}
