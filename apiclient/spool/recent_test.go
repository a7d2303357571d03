package spool

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// headOf is what RecentAttempts keeps of a record.
func headOf(r UploadRecord) UploadRecord {
	return UploadRecord{Time: r.Time, ConnectionID: r.ConnectionID, File: r.File, SHA256: r.SHA256, Key: r.Key, Outcome: r.Outcome}
}

// RecentAttempts returns the newest lines of the history, oldest first,
// with their heads decoded as the full parse decodes them: as many as
// enough asked for (and a few more), whatever the window, and the whole
// history when it is shorter; a torn last line is skipped.
func TestRecentAttemptsIsATailOfTheHistory(t *testing.T) {
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	for i := range 1500 { // ~1 MB: more than the first window
		doc := fmt.Sprintf("PO-%05d", i)
		rec := UploadRecord{Time: at, ConnectionID: "c", File: "/orders/" + doc + ".edi", Size: 300, SHA256: fmt.Sprintf("%064x", i%1200),
			Key: "4012345000009:" + doc + ":orders:1", SenderID: "4012345000009", BusinessID: doc, DocNumbers: []string{doc}, N: 1,
			Outcome: OutcomePending, Status: "say \"hi\""} // an escape: some lines take encoding/json
		require.NoError(t, s.AppendUpload(rec))
		rec.Time, rec.Outcome, rec.HTTPStatus, rec.UploadID = at.Add(time.Second), OutcomeAccepted, 202, "up-"+doc
		if i%3 == 0 {
			rec.Status = "accepted"
		}
		require.NoError(t, s.AppendUpload(rec))
		at = at.Add(time.Minute)
	}
	full, err := s.Uploads("c")
	require.NoError(t, err)
	for _, want := range []int{1, 100, 700, 1400, 5000} {
		asked := 0
		got, err := s.RecentAttempts("c", func(recs []UploadRecord) bool {
			asked++
			return len(Attempts(recs)) >= want
		})
		require.NoError(t, err)
		require.Positive(t, asked)
		if want <= 1500 {
			require.GreaterOrEqual(t, len(Attempts(got)), want)
			require.Less(t, len(got), 2*want+recentBatch+recentMargin+2, "read about what was asked for")
		} else {
			require.Len(t, got, len(full), "the whole history")
		}
		tail := full[len(full)-len(got):]
		for i := range got {
			require.Equal(t, headOf(tail[i]), headOf(got[i]), "want %d, line %d from the end", want, len(got)-i)
		}
	}
	// a torn last line (a crash mid-append) is skipped
	f, err := os.OpenFile(s.historyPath("c"), os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-12-02T10:00:00Z","connectionId":"c","key":"tor`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	got, err := s.RecentAttempts("c", func(recs []UploadRecord) bool { return len(recs) >= 10 })
	require.NoError(t, err)
	require.Equal(t, headOf(full[len(full)-1]), headOf(got[len(got)-1]))
	// no history
	got, err = s.RecentAttempts("other", func([]UploadRecord) bool { return false })
	require.NoError(t, err)
	require.Empty(t, got)
}

// A head decodes as encoding/json decodes the line, and refuses what it
// refuses, even in the fields it does not keep.
func TestRecordHeadsAreEncodingJSONs(t *testing.T) {
	for _, line := range []string{
		`{"time":"2026-03-12T08:00:00Z","key":"k","sha256":"AB","outcome":"accepted","size":12,"n":1,"docNumbers":["x"],"replay":false,"serverTime":"2026-03-12T08:00:01Z"}`,
		`{"key":"k","size":"12"}`, `{"key":"k","replay":"yes"}`, `{"key":"k","serverTime":"soon"}`, `{"key":"k","docNumbers":"x"}`,
		`{"key":"k","status":5}`, `{"key":"k","n":1.5}`, `{"key":"k","extra":1}`, `{"key":"k","uploadId":null}`, `{"Key":"k"}`,
	} {
		want, werr := decodeStd([]byte(line))
		var got UploadRecord
		gerr := decodeHead([]byte(line), &got)
		require.Equal(t, werr == nil, gerr == nil, "%s: %v / %v", line, werr, gerr)
		if werr == nil {
			require.Equal(t, headOf(want), headOf(got), "%s", line)
		}
	}
}
