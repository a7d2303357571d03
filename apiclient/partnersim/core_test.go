package partnersim

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHappyPathOverLoopback(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			f := newFixture(t, m.mode)
			p := payload(300_000)
			id := f.addEntry(t, connA, p, PayloadFault{})

			lr := f.list(t, connA, "")
			require.Len(t, lr.Data, 1)
			sum := sha256.Sum256(p)
			e := lr.Data[0]
			require.Equal(t, id, e.DeliveryAttemptID)
			require.Equal(t, int64(len(p)), e.PayloadSize)
			require.Equal(t, hex.EncodeToString(sum[:]), e.PayloadSHA256)
			require.Equal(t, StatusDue, e.Status)
			require.Equal(t, "2025-06-02T08:00:00Z", e.CreatedAt)
			require.False(t, lr.Meta.HasMore)

			cr := f.claim(t, connA, id)
			require.Equal(t, id, cr.DeliveryAttemptID)
			require.Equal(t, tokenPrefix+"0001", cr.ClaimToken)
			require.Equal(t, "2025-06-02T08:05:00Z", cr.ExpiresAt)
			require.Empty(t, f.list(t, connA, "").Data, "a claimed entry vanishes from the list")

			resp, body := f.send(t, req{method: http.MethodGet, url: f.url(connA, "mailbox", id, "payload"), auth: authAll, token: cr.ClaimToken})
			require.Equal(t, http.StatusOK, resp.StatusCode)
			if m.mode == HTTP2TLS {
				require.Equal(t, 2, resp.ProtoMajor)
			} else {
				require.Equal(t, 1, resp.ProtoMajor)
				require.Equal(t, []string{"chunked"}, resp.TransferEncoding)
			}
			require.Equal(t, p, body)
			require.Equal(t, int64(-1), resp.ContentLength)
			require.Empty(t, resp.Header.Get("Content-Length"))
			require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
			require.Equal(t, "300000", resp.Header.Get("X-B2B-Payload-Size"))
			require.Equal(t, hex.EncodeToString(sum[:]), resp.Header.Get("X-B2B-Payload-SHA256"))
			require.Equal(t, "verified", resp.Trailer.Get(TrailerIntegrity))

			f.clock.Advance(time.Minute)
			code, ar := f.ack(t, connA, id, cr.ClaimToken)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, id, ar.DeliveryAttemptID)
			require.NotEmpty(t, ar.ReceiptID)
			require.Equal(t, "2025-06-02T08:01:00Z", ar.AcknowledgedAt)
			require.False(t, ar.Replay)

			f.clock.Advance(10 * time.Minute) // replay works after the lease would have run out
			code, ar2 := f.ack(t, connA, id, cr.ClaimToken)
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, ar.ReceiptID, ar2.ReceiptID)
			require.Equal(t, ar.AcknowledgedAt, ar2.AcknowledgedAt)
			require.True(t, ar2.Replay)

			st, ok := f.sim.Entry(connA, id)
			require.True(t, ok)
			require.Equal(t, StatusAcknowledged, st.Status)
			require.Equal(t, 1, st.PayloadReads)
			require.Empty(t, f.list(t, connA, "").Data)
		})
	}
}
