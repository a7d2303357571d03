package spool

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// decodeStd is what encoding/json makes of a history line.
func decodeStd(line []byte) (UploadRecord, error) {
	var r UploadRecord
	err := json.Unmarshal(line, &r)
	return r, err
}

// Every line b2bx writes decodes as encoding/json decodes it, and the
// lines whose values need no escape take the fast path.
func TestRecordLinesDecodeAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 23))
	plain := []string{"", "4012345000009", "PO-4711", "/orders/po 1.edi", "Grüße ÄÖÜ", "a:b:orders:1", "up-1"}
	escaped := []string{"say \"hi\"", "a<b>&c", "line\nbreak", "tab\tx", "\u2028", "back\\slash"}
	pick := func(esc bool) string {
		if esc && r.IntN(4) == 0 {
			return escaped[r.IntN(len(escaped))]
		}
		return plain[r.IntN(len(plain))]
	}
	fast := 0
	for i := 0; i < 2000; i++ {
		esc := i%2 == 1
		rec := UploadRecord{Time: time.Date(2026, 3, 12, 8, r.IntN(60), r.IntN(60), r.IntN(1e9), time.FixedZone("", 3600*(r.IntN(5)-2))),
			ConnectionID: pick(esc), File: pick(esc), Size: r.Int64N(1 << 40), SHA256: fmt.Sprintf("%064x", r.Uint64()), Key: pick(esc),
			SenderID: pick(esc), BusinessID: pick(esc), RecipientID: pick(esc), ControlRef: pick(esc), N: r.IntN(9),
			Outcome: []Outcome{OutcomePending, OutcomeAccepted, "rejected", ""}[r.IntN(4)], HTTPStatus: []int{0, 202, 200, 409}[r.IntN(4)],
			UploadID: pick(esc), InterchangeID: pick(esc), Status: pick(esc), Replay: r.IntN(2) == 0, ErrorCode: pick(esc),
			CorrelationID: pick(esc), Fixes: pick(esc), BuyerID: pick(esc), SupplierID: pick(esc)}
		switch r.IntN(3) {
		case 0:
			rec.DocNumbers = []string{pick(esc), pick(esc)}
		case 1:
			rec.DocNumbers = []string{}
		}
		if r.IntN(2) == 0 {
			rec.ServerTime = rec.Time.Add(time.Second).UTC()
		}
		line, err := json.Marshal(rec)
		require.NoError(t, err)
		want, err := decodeStd(line)
		require.NoError(t, err)
		var got UploadRecord
		require.NoError(t, unmarshalRecord(line, &got))
		require.Equal(t, want, got, "%s", line)
		var f UploadRecord
		if fastRecord(line, &f) {
			fast++
			require.Equal(t, want, f, "%s", line)
		} else {
			require.True(t, esc, "a line without escapes took the slow path: %s", line)
		}
	}
	require.Greater(t, fast, 1000, "the fast path was taken")
}

// Lines b2bx would not write: the fast path declines them (or decodes
// them as encoding/json does), and the result is encoding/json's, errors
// included.
func TestOddRecordLinesAreEncodingJSONs(t *testing.T) {
	for _, line := range []string{
		`{"key":"k","KEY":"other"}`, `{"Key":"k"}`, `{"key":"k","key":"again"}`, `{"size":1.0}`, `{"size":"1"}`,
		`{"n":null,"docNumbers":null,"time":null}`, `{"docNumbers":["a"],"docNumbers":null}`, `{"unknown":1,"key":"k"}`,
		`{"time":"2026-13-01T00:00:00Z"}`, `{"replay":1}`, `{"key":"k"`, `{"key":"\u00e4"}`, `{"n":99999999999999999999}`,
		`{"outcome":"accepted","sha256":"AB"} `, "{\"file\":\"\xff\"}", `{"docNumbers":[]}`, `{}`,
	} {
		want, werr := decodeStd([]byte(line))
		var got UploadRecord
		gerr := unmarshalRecord([]byte(line), &got)
		require.Equal(t, werr == nil, gerr == nil, "%s: %v / %v", line, werr, gerr)
		if werr == nil {
			require.Equal(t, want, got, "%s", line)
		}
	}
}

// Whatever the fast path accepts, encoding/json decodes to the same.
func FuzzRecordLine(f *testing.F) {
	for _, s := range []string{`{"time":"2026-03-12T08:00:00Z","key":"k","docNumbers":["PO-1"],"n":1,"replay":true}`,
		`{"size":-0}`, `{"size":0}`, `{"docNumbers":[ ]}`, `{"serverTime":"2026-03-12T08:00:00.123456789-01:30"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got UploadRecord
		if !fastRecord(line, &got) {
			return
		}
		want, err := decodeStd(line)
		if err != nil {
			t.Fatalf("fast path took %q, encoding/json fails: %v", line, err)
		}
		require.Equal(t, want, got, "%q", line)
	})
}
