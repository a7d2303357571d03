//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFindAfterUploadAndAnswers is issue 14's story on the command line
// with the built binary against b2bx sim: an ORDERS uploaded on acme-de
// and one on acme-at, the partner's answers fetched; b2bx find finds the
// order across both connections, --timeline tells it in order with its
// sources, --overdue says nothing is late, and the tracking index holds
// no secret.
func TestFindAfterUploadAndAnswers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := startSim(t, w, "--reply-delay", "300ms")
	de, at := s.conn(t, "acme-de"), s.conn(t, "acme-at")
	file := filepath.Join(repoRoot, ordersFixture)
	before := map[string]bool{}
	for _, id := range ids(listAll(t, w, s, de)) {
		before[id] = true
	}
	r := w.b2bx(t, apiKeyEnv(de), "", append([]string{"upload"}, append(s.connFlags(de), file)...)...)
	require.Equal(t, 0, r.code, "%s", r)
	requirePartnerAnswers(t, w, s, de, before)
	r = w.b2bx(t, apiKeyEnv(at), "", append([]string{"upload"}, append(s.connFlags(at), file)...)...)
	require.Equal(t, 0, r.code, "%s", r)

	f := w.b2bx(t, nil, "", "find", "po:PO-4711", "--json")
	require.Equal(t, 0, f.code, "%s", f)
	require.Contains(t, f.stderr, "the tracking index was rebuilt from the stored files", "said once")
	var res struct {
		Conversations []struct {
			Label string   `json:"label"`
			Conns []string `json:"connections"`
			Items []struct {
				Kind, Type, Connection string
			} `json:"items"`
		} `json:"conversations"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.stdout), &res), f.stdout)
	require.Len(t, res.Conversations, 1)
	c := res.Conversations[0]
	require.Equal(t, "order PO-4711", c.Label)
	require.ElementsMatch(t, []string{de.ConnectionID, at.ConnectionID}, c.Conns, "one order, both connections")
	var kinds []string
	for _, it := range c.Items {
		kinds = append(kinds, it.Kind+" "+it.Type)
	}
	require.Contains(t, kinds, "upload ORDERS")
	require.Contains(t, kinds, "delivery CONTRL")
	require.Contains(t, kinds, "delivery ORDRSP")

	tl := w.b2bx(t, nil, "", "find", "--timeline", "PO-4711")
	require.Equal(t, 0, tl.code, "%s", tl)
	require.NotContains(t, tl.stderr, "rebuilt", "said once: the index exists now")
	up := strings.Index(tl.stdout, "ORDERS uploaded: accepted (HTTP 202)")
	ctl := strings.Index(tl.stdout, "CONTRL: accepted (created in the mailbox)") // acknowledged: gone from the mailbox
	rsp := strings.Index(tl.stdout, "ORDRSP: ")
	require.True(t, up >= 0 && ctl > up && rsp > ctl, "upload, CONTRL, ORDRSP in time order:\n%s", tl.stdout)
	require.Contains(t, tl.stdout, "acknowledged, receipt ")
	require.Contains(t, tl.stdout, "source: upload history ")

	o := w.b2bx(t, nil, "", "find", "--overdue")
	require.Equal(t, 0, o.code, "answered within sla.contrl: nothing is late\n%s", o)
	require.Contains(t, o.stdout, "nothing overdue")

	ix := w.b2bx(t, nil, "", "index", "--rebuild")
	require.Equal(t, 0, ix.code, "%s", ix)
	require.Contains(t, ix.stdout, "indexed ")
	w.requireNoSecretOnDisk(t)
}
