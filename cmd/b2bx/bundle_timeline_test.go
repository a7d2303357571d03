package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

// TestBundleTimelineFromTheIndex: with no hook set, a bundle's
// timeline.txt is the conversation's timeline from the tracking index:
// the upload, then the CONTRL that rejected it, each with its source,
// for the upload's bundle and the answer's alike.
func TestBundleTimelineFromTheIndex(t *testing.T) {
	require.Nil(t, bundleTimeline, "the tracking index is the source")
	s := newSimEnv(t, partnersim.WithResponseDelay(0))
	up, contrl := uploadRejectedFetchCONTRL(t, s)

	outDir := t.TempDir()
	for _, id := range []string{up.UploadID, contrl.DeliveryAttemptID} {
		code, out, errOut := runCmd(t, "", s.env, "bundle", id, "--connection", cliConn, "-o", outDir, "--json")
		require.Equal(t, exitOK, code, errOut)
		files := bundleFiles(t, decodeJSON[bundleJSON](t, out))
		noSecretIn(t, files)
		tl := files["dir/timeline.txt"]
		require.Equal(t, tl, files["tar/timeline.txt"])
		iUp := strings.Index(tl, "upload       ORDERS uploaded")
		iCtl := strings.Index(tl, "answer       CONTRL: rejected")
		require.GreaterOrEqual(t, iUp, 0, "the upload step:\n%s", tl)
		require.Greater(t, iCtl, iUp, "the CONTRL after the upload:\n%s", tl)
		require.Contains(t, tl, "source: upload history")
		require.Contains(t, tl, "source: delivery "+contrl.DeliveryAttemptID)
		require.Contains(t, tl, "NEEDS ACTION")
	}
}
