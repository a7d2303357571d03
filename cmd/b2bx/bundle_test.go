package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// bundleFiles reads every file of the bundle directory and of its
// archive, by "dir/NAME" and "tar/NAME".
func bundleFiles(t *testing.T, res bundleJSON) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range res.Files {
		b, err := os.ReadFile(filepath.Join(res.Dir, n))
		require.NoError(t, err)
		out["dir/"+n] = string(b)
	}
	f, err := os.Open(res.Archive)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			require.Equal(t, filepath.Base(res.Dir), filepath.Dir(h.Name), "one top directory")
			out["tar/"+filepath.Base(h.Name)] = string(b)
		}
	}
	return out
}

// noSecretIn is the canary check over every file of a bundle.
func noSecretIn(t *testing.T, files map[string]string) {
	t.Helper()
	for name, body := range files {
		for _, bad := range []string{cliCanarySecret, cliCanaryToken, "Authorization", "Bearer", "key-cli:"} {
			require.NotContains(t, body, bad, "%s holds %q", name, bad)
		}
	}
}

// uploadRejectedFetchCONTRL uploads testdata's orders_rejectable.edi
// with b2bx upload and fetches (and acknowledges) the next entry: the
// partner's answer to it.
func uploadRejectedFetchCONTRL(t *testing.T, s *simEnv) (uploadJSON, fetchJSON) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi"))
	require.NoError(t, err)
	code, out, errOut := s.run(t, "", "upload", orderstest.WriteFile(t, "po.edi", data), "--json")
	require.Equal(t, exitOK, code, errOut)
	up := decodeJSON[uploadJSON](t, out)
	code, out, errOut = s.run(t, "", "fetch", "--next", "--ack", "--json")
	require.Equal(t, exitOK, code, errOut)
	return up, decodeJSON[fetchJSON](t, out)
}

func TestBundleOfARejectedUploadAndItsCONTRL(t *testing.T) {
	s := newSimEnv(t, partnersim.WithResponseDelay(0))
	up, contrl := uploadRejectedFetchCONTRL(t, s)
	require.Equal(t, "CONTRL", contrl.MessageType)

	old := bundleTimeline
	t.Cleanup(func() { bundleTimeline = old })
	bundleTimeline = func(_ context.Context, conn, id string) ([]string, error) {
		return []string{"timeline of " + conn + "/" + id}, nil
	}
	outDir := t.TempDir()
	bundle := func(id string) (bundleJSON, map[string]string) {
		t.Helper()
		code, out, errOut := runCmd(t, "", s.env, "bundle", id, "--connection", cliConn, "-o", outDir, "--json")
		require.Equal(t, exitOK, code, errOut)
		res := decodeJSON[bundleJSON](t, out)
		files := bundleFiles(t, res)
		require.Len(t, files, 2*6, "six files, in the directory and the archive")
		for _, n := range res.Files {
			require.Equal(t, files["dir/"+n], files["tar/"+n], n)
		}
		noSecretIn(t, files)
		return res, files
	}

	res, f := bundle(up.UploadID)
	require.Contains(t, res.Subject, "upload "+up.UploadID)
	require.Contains(t, f["dir/README.txt"], "HTTP 202")
	require.Contains(t, f["dir/README.txt"], "CONTRL: rejected")
	require.Contains(t, f["dir/README.txt"], "unchanged")
	require.Contains(t, f["dir/ids.txt"], up.UploadID)
	require.Contains(t, f["dir/ids.txt"], up.Key)
	require.Contains(t, f["dir/ids.txt"], "ICR0042")
	require.Contains(t, f["dir/ids.txt"], contrl.DeliveryAttemptID)
	require.Contains(t, f["dir/checks.txt"], up.SHA256)
	require.Contains(t, f["dir/answers.txt"], `element 2:1`)
	require.Contains(t, f["dir/answers.txt"], `"4012345000085"`)
	require.Contains(t, f["dir/excerpts.txt"], `NAD+BY+4012345000085::9++M\xfcller`, "raw Latin-1 bytes escaped")
	require.Contains(t, f["dir/timeline.txt"], "timeline of "+cliConn+"/"+up.UploadID)

	res, f = bundle(contrl.DeliveryAttemptID)
	require.Contains(t, res.Subject, "delivery "+contrl.DeliveryAttemptID)
	require.Contains(t, f["dir/README.txt"], "It was acknowledged at")
	require.Contains(t, f["dir/README.txt"], "integrity trailer")
	require.Contains(t, f["dir/ids.txt"], up.UploadID)
	require.Contains(t, f["dir/answers.txt"], "CONTRL for interchange ICR0042")
	require.Contains(t, f["dir/answers.txt"], `"4012345000085"`)
	require.Contains(t, f["dir/excerpts.txt"], "NAD+BY+4012345000085")
	for _, b := range f {
		for _, r := range b {
			require.True(t, r == '\n' || (r >= 0x20 && r < 0x7f) || r == '—' || r == '…', "non-ASCII or control rune %q in the bundle", r)
		}
	}

	// The same ID again: a second bundle beside the first, never over it.
	res2, _ := bundle(contrl.DeliveryAttemptID)
	require.NotEqual(t, res.Dir, res2.Dir)

	code, _, errOut := runCmd(t, "", s.env, "bundle", "no-such-id", "--connection", cliConn, "-o", outDir)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "no stored delivery and no upload")
	code, _, errOut = runCmd(t, "", s.env, "bundle", up.UploadID, "--connection", cliConn, "-o", filepath.Join(outDir, "missing"))
	require.Equal(t, exitStorage, code)
	require.Contains(t, errOut, "does not exist")
	// issue 23: without -c the tracking index finds the one connection
	// that stores the ID; an ID stored nowhere is a usage error
	code, out, errOut := runCmd(t, "", s.env, "bundle", up.UploadID, "-o", outDir)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "bundle ")
	code, _, errOut = runCmd(t, "", s.env, "bundle", "no-such-id", "-o", outDir)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "name the connection with -c NAME")
	ents, _ := os.ReadDir(outDir)
	for _, e := range ents {
		require.False(t, strings.HasPrefix(e.Name(), ".b2bx-bundle-"), "temporary directory left: %s", e.Name())
	}
}
