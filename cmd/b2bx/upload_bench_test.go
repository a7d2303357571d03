package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// writeBigStore lays out n stored, acknowledged deliveries on the CLI's
// connection as the spool does (payload + sidecar), answering n/2 accepted
// uploads of the history: per order a CONTRL and an ORDRSP. It is a
// fixture: no fsync.
func writeBigStore(tb testing.TB, dataDir string, n int) {
	tb.Helper()
	const buyer, supplier = "4012345000009", "4098765000003"
	conn := filepath.Join(dataDir, spool.SafeName(cliConn))
	ddir := filepath.Join(conn, "deliveries")
	require.NoError(tb, os.MkdirAll(ddir, 0o700))
	at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	var hist []byte
	for i := 0; i < n; i++ {
		order := i / 2
		doc, ref := fmt.Sprintf("PO-B%07d", order), fmt.Sprintf("B%07d", order)
		var data []byte
		typ := "CONTRL"
		if i%2 == 0 {
			line, _ := json.Marshal(spool.UploadRecord{Time: at.Add(-time.Minute), ConnectionID: cliConn, File: "/orders/" + doc + ".edi", Size: 300,
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
		m := spool.Meta{ConnectionID: cliConn, DeliveryAttemptID: id, InterchangeID: "ic-" + id, MessageType: typ, CreatedAt: at,
			Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ReceivedAt: at.Add(30 * time.Second), ReceiptID: "rc-" + id,
			AcknowledgedAt: &ack, File: id + ".edi"}
		side, _ := json.MarshalIndent(m, "", "  ")
		require.NoError(tb, os.WriteFile(filepath.Join(ddir, id+".edi"), data, 0o600))
		require.NoError(tb, os.WriteFile(filepath.Join(ddir, id+".json"), side, 0o600))
		at = at.Add(time.Second)
	}
	require.NoError(tb, os.WriteFile(filepath.Join(conn, "uploads.jsonl"), hist, 0o600))
	old := time.Now().Add(-time.Hour) // a directory changed in the last 2 s is always walked
	for _, p := range []string{"deliveries", "uploads.jsonl"} {
		require.NoError(tb, os.Chtimes(filepath.Join(conn, p), old, old))
	}
}

// BenchmarkUploadStoreSize is one `b2bx upload` of a new order, in
// process against the simulator, with an empty store and with
// B2BX_BENCH_UPLOAD_DELIVERIES (default 100,000) stored deliveries
// answering half as many uploads on the same connection (issue 23: ≤ 1.2×
// the empty store). The index is built before the clock starts, as on a
// machine that has run `find` once. heap-MB is the live heap after the
// last upload.
func BenchmarkUploadStoreSize(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("B2BX_BENCH_UPLOAD_DELIVERIES")); err == nil && v > 0 {
		n = v
	}
	for _, size := range []int{0, n} {
		b.Run(fmt.Sprintf("stored=%d", size), func(b *testing.B) {
			s := newSimEnv(b)
			if size > 0 {
				writeBigStore(b, s.dataDir, size)
			}
			code, _, errOut := runCmd(b, "", s.env, "find", "PO-none") // builds the index
			require.Contains(b, []int{exitOK, exitFileError}, code, errOut)
			dir := b.TempDir()
			i := 0
			for b.Loop() {
				i++
				po := filepath.Join(dir, fmt.Sprintf("po%d.edi", i))
				require.NoError(b, os.WriteFile(po, orderstest.Orders(fmt.Sprintf("R%06d", i), 3, fmt.Sprintf("PO-N%06d", i)), 0o600))
				code, _, errOut := s.run(b, "", "upload", po)
				if code != exitOK {
					b.Fatalf("upload: %d %s", code, errOut)
				}
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
		})
	}
}
