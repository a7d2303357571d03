package orders

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// historyStore records accepted uploads (each answered by an accepting
// CONTRL) and rejected ones with NAD+IV (a rejecting CONTRL), the bytes
// in files the records name.
func historyStore(t *testing.T, accepted, rejected int) *spool.Store {
	t.Helper()
	st, err := spool.Open(t.TempDir())
	require.NoError(t, err)
	n := 0
	add := func(ok bool) {
		n++
		ref, doc := fmt.Sprintf("REF%03d", n), fmt.Sprintf("PO-%d", n)
		data := orderstest.Orders(ref, n, doc)
		action := "7"
		if !ok {
			data = []byte(strings.Replace(string(data), "NAD+BY+4012345000009::9'", "NAD+BY+4012345000009::9'NAD+IV+4012345000009::9'", 1))
			data = []byte(strings.Replace(string(data), "UNT+8+", "UNT+9+", 1))
			action = "4"
		}
		path := orderstest.WriteFile(t, "po.edi", data)
		at := t0.Add(time.Duration(n) * time.Hour)
		require.NoError(t, st.AppendUpload(spool.UploadRecord{Time: at, ConnectionID: resendConn, File: path, Size: int64(len(data)), SHA256: sum(data),
			Key: "4012345000009:" + doc + ":orders:1", N: 1, SenderID: "4012345000009", BusinessID: doc, RecipientID: "4098765000003",
			ControlRef: ref, DocNumbers: []string{doc}, Outcome: spool.OutcomeAccepted, HTTPStatus: 202, UploadID: "up-" + ref, Status: "received"}))
		contrl := fmt.Sprintf("UNB+UNOC:3+4098765000003:14+4012345000009:14+250602:0900+C%s'UNH+1+CONTRL:2:2:UN'UCI+%s+4012345000009:14+4098765000003:14+%s'UNT+3+1'UNZ+1+C%s'", ref, ref, action, ref)
		storeDelivery(t, st, "dlv-"+ref, "CONTRL", []byte(contrl), at.Add(time.Minute))
	}
	for range accepted {
		add(true)
	}
	for range rejected {
		add(false)
	}
	return st
}

// TestHistoryDifferences: a shape no accepted upload had is a warning,
// once per difference, with the rejected ones that had it; none with
// fewer than MinAccepted accepted uploads.
func TestHistoryDifferences(t *testing.T) {
	h, err := LoadHistory(t.Context(), historyStore(t, 6, 2), resendConn, nil)
	require.NoError(t, err)
	require.Equal(t, 6, h.Accepted)
	require.Equal(t, 2, h.Rejected)
	require.Equal(t, 6, h.AcceptedWith("NAD+BY"))

	withIV := strings.Replace(string(orderstest.Orders("NEW1", 1, "PO-99", "PO-100")), "NAD+BY+4012345000009::9'", "NAD+BY+4012345000009::9'NAD+IV+4012345000009::9'LOC+7+DEPOT1'", 2)
	withIV = strings.ReplaceAll(withIV, "UNT+8+", "UNT+10+")
	pf := InspectBytesWith("po.edi", []byte(withIV), Options{History: h})
	require.False(t, pf.Blocked(), "a warning, never a block: %v", pf.Problem)
	var got []string
	for _, c := range pf.Warnings() {
		if c.Name == CheckHistory {
			got = append(got, c.Text)
		}
	}
	require.Equal(t, []string{
		"this partner accepted 6 ORDERS, none with LOC+7; 0 of the 2 rejected ones had it",
		"this partner accepted 6 ORDERS, none with NAD+IV; 2 of the 2 rejected ones had it",
	}, got)

	require.Empty(t, InspectBytesWith("po.edi", orderstest.Orders("NEW2", 1, "PO-101"), Options{History: h}).Warnings(), "the accepted shape")

	few, err := LoadHistory(t.Context(), historyStore(t, 4, 2), resendConn, nil)
	require.NoError(t, err)
	require.Equal(t, 4, few.Accepted)
	require.Empty(t, InspectBytesWith("po.edi", []byte(withIV), Options{History: few}).Warnings(), "off below 5 accepted uploads")
}

// TestLearnMIG: the learned rules are a valid rules file that requires
// what every accepted upload had and forbids what only rejected ones had.
func TestLearnMIG(t *testing.T) {
	h, err := LoadHistory(t.Context(), historyStore(t, 5, 3), resendConn, nil)
	require.NoError(t, err)
	out := LearnMIG(h, "acme")
	rs, err := mig.Parse("learned.toml", out)
	require.NoError(t, err, "%s", out)
	var got []string
	for _, r := range rs.Rules {
		got = append(got, fmt.Sprintf("%s %d %d", r.Segment, r.Min, r.Max))
	}
	require.Contains(t, got, "NAD+BY 1 -1")
	require.Contains(t, got, "BGM+220 1 -1")
	require.Contains(t, got, "NAD+IV 0 0")
	require.Contains(t, string(out), `why = "in 3 of the 3 rejected ORDERS, in none of the 5 accepted"`)
}

// TestHistoryShapesCachedAndBounded: the shape of each sent payload is
// parsed once (the cache answers after the files are gone), and only the
// newest MaxHistory distinct payloads count.
func TestHistoryShapesCachedAndBounded(t *testing.T) {
	st := historyStore(t, 6, 2)
	first, err := LoadHistory(t.Context(), st, resendConn, nil)
	require.NoError(t, err)
	hist, err := st.Uploads(resendConn)
	require.NoError(t, err)
	for _, r := range hist {
		require.NoError(t, os.Remove(r.File))
	}
	again, err := LoadHistory(t.Context(), st, resendConn, nil)
	require.NoError(t, err)
	require.Equal(t, first.Accepted, again.Accepted, "from the cache, not the files")
	require.Equal(t, first.Rejected, again.Rejected)
	require.Equal(t, first.Features(), again.Features())

	big := historyStore(t, MaxHistory+7, 0)
	h, err := LoadHistory(t.Context(), big, resendConn, nil)
	require.NoError(t, err)
	require.Equal(t, MaxHistory, h.Accepted)
}
