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
// accepted uploads of the history: per order a CONTRL and an ORDRSP. The
// history is as uploads write it (a pending and a result line per upload,
// the copy of the bytes sent kept in sent/). It is a fixture for the benchmarks of a large store (issue 23 §1): no
// fsync, and the directories dated an hour back (one changed in the last
// 2 s is always walked by the index).
func WriteBigStore(tb testing.TB, dataDir, conn string, n int) {
	tb.Helper()
	const buyer, supplier = "4012345000009", "4098765000003"
	cdir := filepath.Join(dataDir, spool.SafeName(conn))
	ddir, sdir := filepath.Join(cdir, "deliveries"), filepath.Join(cdir, "sent")
	require.NoError(tb, os.MkdirAll(ddir, 0o700))
	require.NoError(tb, os.MkdirAll(sdir, 0o700))
	at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	var hist []byte
	for i := 0; i < n; i++ {
		order := i / 2
		doc, ref := fmt.Sprintf("PO-B%07d", order), fmt.Sprintf("B%07d", order)
		var data []byte
		typ := "CONTRL"
		if i%2 == 0 {
			// the upload as `b2bx upload` records it: the copy of the bytes
			// sent (what the pre-flight's history parses), a pending line
			// before the send and the result after it
			sent := OrdersIC(buyer, supplier, ref, doc)
			sum := sha256.Sum256(sent)
			sha := hex.EncodeToString(sum[:])
			require.NoError(tb, os.WriteFile(filepath.Join(sdir, sha+".edi"), sent, 0o600))
			rec := spool.UploadRecord{Time: at.Add(-time.Minute - time.Second), ConnectionID: conn, File: "/orders/" + doc + ".edi", Size: int64(len(sent)),
				SHA256: sha, Key: buyer + ":" + doc + ":orders:1", SenderID: buyer, BusinessID: doc,
				RecipientID: supplier, ControlRef: ref, DocNumbers: []string{doc}, N: 1, Outcome: spool.OutcomePending,
				BuyerID: buyer, SupplierID: supplier}
			line, _ := json.Marshal(rec)
			hist = append(append(hist, line...), '\n')
			rec.Time, rec.Outcome, rec.HTTPStatus, rec.UploadID, rec.InterchangeID, rec.Status = at.Add(-time.Minute), spool.OutcomeAccepted, 202, "up-"+doc, "ic-"+doc, "accepted"
			rec.ServerTime, rec.CorrelationID = at.Add(-time.Minute), "corr-"+doc
			line, _ = json.Marshal(rec)
			hist = append(append(hist, line...), '\n')
			data = fmt.Appendf(nil, "UNB+UNOA:3+%s:14+%s:14+260312:1031+C%07d'UNH+C1+CONTRL:2:2:UN'UCI+%s+%s:14+%s:14+7'UNT+3+C1'UNZ+1+C%07d'",
				supplier, buyer, i, ref, buyer, supplier, i)
		} else {
			typ = "ORDRSP"
			data = fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1200+R%07d'UNH+R1+ORDRSP:D:96A:UN'BGM+231+RSP-%s+4'"+
				"DTM+137:20260312:102'RFF+ON:%s'NAD+BY+%s::9'NAD+SU+%s::9'UNS+S'UNT+8+R1'UNZ+1+R%07d'",
				supplier, buyer, i, doc, doc, buyer, supplier, i)
		}
		WriteAcked(tb, ddir, conn, fmt.Sprintf("d-%07d", i), typ, data, at)
		at = at.Add(time.Second)
	}
	if n > 0 {
		require.NoError(tb, os.WriteFile(filepath.Join(cdir, "uploads.jsonl"), hist, 0o600))
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"deliveries", "sent", "uploads.jsonl"} {
		if _, err := os.Stat(filepath.Join(cdir, p)); err == nil {
			require.NoError(tb, os.Chtimes(filepath.Join(cdir, p), old, old))
		}
	}
}

// WriteAcked writes an acknowledged delivery of conn into ddir (its
// deliveries directory) as the spool stores one: the payload and its
// sidecar, created at at, received 30 s and acknowledged a minute later.
func WriteAcked(tb testing.TB, ddir, conn, id, typ string, data []byte, at time.Time) {
	tb.Helper()
	sum := sha256.Sum256(data)
	ack := at.Add(time.Minute)
	m := spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, InterchangeID: "ic-" + id, MessageType: typ, CreatedAt: at,
		Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ReceivedAt: at.Add(30 * time.Second), ReceiptID: "rc-" + id,
		AcknowledgedAt: &ack, File: id + ".edi"}
	side, _ := json.MarshalIndent(m, "", "  ")
	require.NoError(tb, os.WriteFile(filepath.Join(ddir, id+".edi"), data, 0o600))
	require.NoError(tb, os.WriteFile(filepath.Join(ddir, id+".json"), side, 0o600))
}
