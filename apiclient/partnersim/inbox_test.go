package partnersim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type uploadResp struct {
	UploadID      string `json:"uploadId"`
	InterchangeID string `json:"interchangeId"`
	Status        string `json:"status"`
	Replay        bool   `json:"replay"`
}

func (f *fixture) upload(t *testing.T, conn, key, ctype string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	hdr := map[string]string{}
	if key != "" {
		hdr["Idempotency-Key"] = key
	}
	if ctype != "" {
		hdr["Content-Type"] = ctype
	}
	return f.send(t, req{method: http.MethodPost, url: f.url(conn, "inbox"), auth: authAll, header: hdr, body: body})
}

const sampleOrders = "UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+REF1'" +
	"UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'UNT+3+1'UNZ+1+REF1'"

func TestInboxIdempotency(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		resp, body := f.upload(t, connA, "4012345000009:PO-1:orders:1", "application/edifact", strings.NewReader(sampleOrders))
		require.Equal(t, http.StatusAccepted, resp.StatusCode, string(body))
		var first uploadResp
		require.NoError(t, json.Unmarshal(body, &first))
		require.NotEmpty(t, first.UploadID)
		require.NotEmpty(t, first.InterchangeID)
		require.Equal(t, UploadStatusAccepted, first.Status)
		require.False(t, first.Replay)

		resp, body = f.upload(t, connA, "4012345000009:PO-1:orders:1", "application/octet-stream", strings.NewReader(sampleOrders))
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		var again uploadResp
		require.NoError(t, json.Unmarshal(body, &again))
		require.Equal(t, first.UploadID, again.UploadID)
		require.Equal(t, first.InterchangeID, again.InterchangeID)
		require.True(t, again.Replay)

		resp, body = f.upload(t, connA, "4012345000009:PO-1:orders:1", "application/edifact", strings.NewReader(sampleOrders+"\n"))
		requireError(t, resp, body, http.StatusConflict, CodeConflict)

		// The key is bound to the connection: the same key elsewhere is new.
		resp, body = f.upload(t, connA2, "4012345000009:PO-1:orders:1", "application/edifact", strings.NewReader(sampleOrders+"\n"))
		require.Equal(t, http.StatusAccepted, resp.StatusCode, string(body))

		ups := f.sim.Uploads(connA)
		require.Len(t, ups, 1)
		require.Equal(t, []byte(sampleOrders), ups[0].Payload, "bytes unchanged")
		require.Equal(t, keyAll, ups[0].KeyID)
		var outcomes []string
		for _, ev := range f.sim.Audit() {
			if ev.Action == AuditUpload {
				outcomes = append(outcomes, ev.Outcome)
			}
		}
		require.Equal(t, []string{"accepted", "replay", "conflict", "accepted"}, outcomes)
	})
}

func TestInboxNoInterchangeIDWithoutUNB(t *testing.T) {
	f := newFixture(t, HTTP1)
	resp, body := f.upload(t, connA, "k", "application/edifact", strings.NewReader("hello"))
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.NotContains(t, string(body), "interchangeId")
}

func TestInboxBadRequests(t *testing.T) {
	f := newFixture(t, HTTP1)
	good := "application/edifact"
	for _, tc := range []struct {
		name, key, ctype, body string
	}{
		{"no key", "", good, sampleOrders},
		{"key too long", strings.Repeat("k", 201), good, sampleOrders},
		{"key with space", "a b", good, sampleOrders},
		{"key with slash", "a/b", good, sampleOrders},
		{"key with umlaut", "bestellung-ä", good, sampleOrders},
		{"no content type", "k1", "", sampleOrders},
		{"json content type", "k1", "application/json", sampleOrders},
		{"text content type", "k1", "text/plain", sampleOrders},
		{"broken content type", "k1", "application/", sampleOrders},
		{"empty body", "k1", good, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.upload(t, connA, tc.key, tc.ctype, strings.NewReader(tc.body))
			requireError(t, resp, body, http.StatusBadRequest, CodeInvalidRequest)
		})
	}
	require.Empty(t, f.sim.Uploads(connA))
	for _, ok := range []struct{ key, ctype string }{
		{strings.Repeat("k", 200), good},
		{"Az09._:-", "application/EDIFACT; charset=iso-8859-1"},
		{"k2", "application/octet-stream"},
	} {
		resp, body := f.upload(t, connA, ok.key, ok.ctype, strings.NewReader(sampleOrders))
		require.Equal(t, http.StatusAccepted, resp.StatusCode, string(body))
	}
}

// genReader yields n bytes without holding them.
type genReader struct{ left int64 }

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), g.left)], genChunk)
	g.left -= int64(n)
	return n, nil
}

var genChunk = bytes.Repeat([]byte("A"), 64<<10)

func TestInboxTooLarge(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		// Exactly the limit is fine.
		resp, body := f.upload(t, connA, "at-limit", "application/edifact", io.NopCloser(&genReader{left: MaxPayloadSize}))
		require.Equal(t, http.StatusAccepted, resp.StatusCode, string(body))
		// One byte more, streamed without Content-Length, is 413.
		resp, body = f.upload(t, connA, "over", "application/edifact", io.NopCloser(&genReader{left: MaxPayloadSize + 1}))
		requireError(t, resp, body, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
		recs := f.sim.Requests()
		require.Equal(t, int64(MaxPayloadSize+1), recs[len(recs)-1].BodyBytes)
		// A declared Content-Length beyond the limit is refused unread.
		hr, err := http.NewRequest(http.MethodPost, f.url(connA, "inbox"), bytes.NewReader(make([]byte, MaxPayloadSize+1)))
		require.NoError(t, err)
		hr.Header.Set("Authorization", authAll)
		hr.Header.Set("Content-Type", "application/edifact")
		hr.Header.Set("Idempotency-Key", "declared")
		resp, err = f.hc.Do(hr)
		if err == nil { // the server may close before the client finished sending
			resp.Body.Close()
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		}
		recs = f.sim.Requests()
		require.Zero(t, recs[len(recs)-1].BodyBytes)
		require.Len(t, f.sim.Uploads(connA), 1)
	})
}

// TestInboxTooLargeStopsReading: a 64 MiB stream is cut off after the
// limit; the server never reads (or holds) more than 16 MiB + 1 bytes.
func TestInboxTooLargeStopsReading(t *testing.T) {
	inEachMode(t, func(t *testing.T, f *fixture) {
		hr, err := http.NewRequest(http.MethodPost, f.url(connA, "inbox"), io.NopCloser(&genReader{left: 64 << 20}))
		require.NoError(t, err)
		hr.Header.Set("Authorization", authAll)
		hr.Header.Set("Content-Type", "application/edifact")
		hr.Header.Set("Idempotency-Key", "huge")
		resp, err := f.hc.Do(hr)
		if err == nil {
			resp.Body.Close()
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		}
		recs := f.sim.Requests()
		require.Len(t, recs, 1)
		require.Equal(t, http.StatusRequestEntityTooLarge, recs[0].Status)
		require.Equal(t, int64(MaxPayloadSize+1), recs[0].BodyBytes)
		require.Empty(t, f.sim.Uploads(connA))
	})
}
