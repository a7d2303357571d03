package orderstest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// WriteBigStore lays out n stored, acknowledged deliveries on connection
// conn under dataDir as the spool does (payload + sidecar), answering n/2
// accepted uploads of the history: per order a CONTRL and an ORDRSP. It
// is a fixture for the benchmarks of a large store (issue 23 §1): no
// fsync, and the directories dated an hour back (one changed in the last
// 2 s is always walked by the index).
func WriteBigStore(tb testing.TB, dataDir, conn string, n int) {
	tb.Helper()
	const buyer, supplier = "4012345000009", "4098765000003"
	cdir := filepath.Join(dataDir, spool.SafeName(conn))
	ddir := filepath.Join(cdir, "deliveries")
	require.NoError(tb, os.MkdirAll(ddir, 0o700))
	at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	var hist []byte
	for i := 0; i < n; i++ {
		order := i / 2
		doc, ref := fmt.Sprintf("PO-B%07d", order), fmt.Sprintf("B%07d", order)
		var data []byte
		typ := "CONTRL"
		if i%2 == 0 {
			line, _ := json.Marshal(spool.UploadRecord{Time: at.Add(-time.Minute), ConnectionID: conn, File: "/orders/" + doc + ".edi", Size: 300,
				SHA256: fmt.Sprintf("%064x", order+1), Key: buyer + ":" + doc + ":orders:1", SenderID: buyer, BusinessID: doc,
				RecipientID: supplier, ControlRef: ref, DocNumbers: []string{doc}, N: 1, Outcome: spool.OutcomeAccepted,
				HTTPStatus: 202, UploadID: "up-" + doc, InterchangeID: "ic-" + doc, Status: "accepted"})
			hist = append(append(hist, line...), '\n')
			data = fmt.Appendf(nil, "UNB+UNOA:3+%s:14+%s:14+260312:1031+C%07d'UNH+C1+CONTRL:2:2:UN'UCI+%s+%s:14+%s:14+7'UNT+3+C1'UNZ+1+C%07d'",
				supplier, buyer, i, ref, buyer, supplier, i)
		} else {
			typ = "ORDRSP"
			data = fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1200+R%07d'UNH+R1+ORDRSP:D:96A:UN'BGM+231+RSP-%s+4'"+
				"DTM+137:20260312:102'RFF+ON:%s'NAD+BY+%s::9'NAD+SU+%s::9'UNS+S'UNT+8+R1'UNZ+1+R%07d'",
				supplier, buyer, i, doc, doc, buyer, supplier, i)
		}
		id := fmt.Sprintf("d-%07d", i)
		sum := sha256.Sum256(data)
		ack := at.Add(time.Minute)
		m := spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, InterchangeID: "ic-" + id, MessageType: typ, CreatedAt: at,
			Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ReceivedAt: at.Add(30 * time.Second), ReceiptID: "rc-" + id,
			AcknowledgedAt: &ack, File: id + ".edi"}
		side, _ := json.MarshalIndent(m, "", "  ")
		require.NoError(tb, os.WriteFile(filepath.Join(ddir, id+".edi"), data, 0o600))
		require.NoError(tb, os.WriteFile(filepath.Join(ddir, id+".json"), side, 0o600))
		at = at.Add(time.Second)
	}
	if n > 0 {
		require.NoError(tb, os.WriteFile(filepath.Join(cdir, "uploads.jsonl"), hist, 0o600))
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"deliveries", "uploads.jsonl"} {
		if _, err := os.Stat(filepath.Join(cdir, p)); err == nil {
			require.NoError(tb, os.Chtimes(filepath.Join(cdir, p), old, old))
		}
	}
}
