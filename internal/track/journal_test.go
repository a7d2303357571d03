package track

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// TestUploadReindexesOnlyItsAttempt: after an upload the index reads the
// one attempt the history grew by (its pending and result records), not
// every upload the connection made; what find answers is the same as
// after a rebuild.
func TestUploadReindexesOnlyItsAttempt(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	at := t0
	for i := range 30 {
		doc := fmt.Sprintf("PO-%04d", i)
		uploaded(t, s, "conn-a", fmt.Sprintf("R%04d", i), doc, ordersIC(fmt.Sprintf("R%04d", i), doc), at, spool.OutcomeAccepted)
		at = at.Add(time.Minute)
	}
	x, err := Open(t.Context(), Options{Dir: dir, Now: func() time.Time { return at }})
	require.NoError(t, err)
	defer x.Close()
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	_, items, _, err := x.Backend().Counts(t.Context())
	require.NoError(t, err)

	uploaded(t, s, "conn-a", "R9999", "PO-9999", ordersIC("R9999", "PO-9999"), at, spool.OutcomeAccepted)
	var st Stats
	st, err = x.syncHistoryOnly(t, dir, "conn-a")
	require.NoError(t, err)
	assert.Equal(t, 1, st.Parts, "one attempt re-indexed")
	_, after, _, err := x.Backend().Counts(t.Context())
	require.NoError(t, err)
	assert.Equal(t, items+1, after)

	res, err := x.Backend().Match(t.Context(), Match{Value: norm("PO-9999"), Kinds: []KeyKind{KeyPO}})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, KindUpload, res[0].Kind)
	assert.Equal(t, filepath.Join(s.Root(), "conn-a", "uploads.jsonl"), res[0].Path, "an item of a part reads as its journal")
	old, err := x.Backend().Match(t.Context(), Match{Value: norm("PO-0003"), Kinds: []KeyKind{KeyPO}})
	require.NoError(t, err)
	require.Len(t, old, 1, "the other attempts are still indexed")

	require.NoError(t, x.Backend().Reset(t.Context()))
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	_, rebuilt, _, err := x.Backend().Counts(t.Context())
	require.NoError(t, err)
	assert.Equal(t, after, rebuilt, "incremental and rebuilt agree")
}

func (x *Index) syncHistoryOnly(t *testing.T, dir, conn string) (Stats, error) {
	t.Helper()
	var st Stats
	known, err := x.b.Sources(t.Context(), filepath.Join(dir, conn)+string(filepath.Separator))
	require.NoError(t, err)
	s, err := spool.Open(dir)
	require.NoError(t, err)
	b := &batcher{ctx: t.Context(), x: x}
	c := conn
	if err := x.syncHistory(t.Context(), b, s, filepath.Join(dir, conn), &c, known, &st); err != nil {
		return st, err
	}
	return st, b.flush()
}

// TestUploadDoesNotWalkTheDeliveries: when only the journals of a
// connection changed (an upload), a sync reads the history and neither
// lists nor re-reads the stored deliveries; they stay indexed.
func TestUploadDoesNotWalkTheDeliveries(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	for i := range 20 {
		store(t, s, "conn-a", fmt.Sprintf("d-%02d", i), "CONTRL", contrl(fmt.Sprintf("C%02d", i), fmt.Sprintf("R%04d", i), false), t0, true)
	}
	uploaded(t, s, "conn-a", "R0001", "PO-0001", ordersIC("R0001", "PO-0001"), t0, spool.OutcomeAccepted)
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"deliveries", "uploads.jsonl", "sent"} {
		require.NoError(t, os.Chtimes(filepath.Join(dir, "conn-a", p), old, old))
	}
	x, err := Open(t.Context(), Options{Dir: dir, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	defer x.Close()
	st, err := x.SyncConn(t.Context(), dir, "conn-a")
	require.NoError(t, err)
	require.Equal(t, 21, st.Read, "the first sync reads 20 deliveries and the history")
	_, items, _, err := x.Backend().Counts(t.Context())
	require.NoError(t, err)

	uploaded(t, s, "conn-a", "R0002", "PO-0002", ordersIC("R0002", "PO-0002"), t0.Add(time.Minute), spool.OutcomeAccepted)
	before := x.raw.(*SQLite).Stats().SourcesRead
	st, err = x.SyncConn(t.Context(), dir, "conn-a")
	require.NoError(t, err)
	assert.LessOrEqual(t, x.raw.(*SQLite).Stats().SourcesRead-before, 3, "the deliveries' sources are not compared")
	assert.Equal(t, 1, st.Read, "only the history is read")
	assert.Equal(t, 1, st.Parts, "and in it only the new attempt")
	assert.Zero(t, st.Forgot)
	_, after, _, err := x.Backend().Counts(t.Context())
	require.NoError(t, err)
	assert.Equal(t, items+1, after, "the deliveries are still indexed")

	// a new delivery is seen again (its directory changed)
	store(t, s, "conn-a", "d-new", "CONTRL", contrl("CNEW", "R0002", false), t0.Add(2*time.Minute), true)
	st, err = x.SyncConn(t.Context(), dir, "conn-a")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Read, 1)
	got, err := x.Backend().Match(t.Context(), Match{Value: norm("d-new"), Kinds: []KeyKind{KeyID}})
	require.NoError(t, err)
	assert.Len(t, got, 1)
}

// TestJournalAppendsAcrossSyncs: a result appended to an attempt whose
// pending record an earlier sync read, and a delivery's second state in
// the seen journal, are indexed from the new lines with their earlier
// ones: the index equals a rebuild's after each step; a torn last line
// is read again once it is whole.
func TestJournalAppendsAcrossSyncs(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	uploaded(t, s, "conn-a", "R0001", "PO-0001", ordersIC("R0001", "PO-0001"), t0, spool.OutcomeAccepted)
	x, err := Open(t.Context(), Options{Dir: dir, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	defer x.Close()
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	check := func(step string) {
		t.Helper()
		require.NoError(t, x.IndexHistory(t.Context(), dir, "conn-a"))
		inc := dump(t, x)
		_, err := x.Rebuild(t.Context(), "test")
		require.NoError(t, err)
		require.Equal(t, dump(t, x), inc, step)
	}

	data := ordersIC("R0002", "PO-0002")
	_, err = s.KeepSent("conn-a", data)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	rec := spool.UploadRecord{Time: t0.Add(time.Minute), ConnectionID: "conn-a", File: "/tmp/PO-0002.edi", Size: int64(len(data)),
		SHA256: hex.EncodeToString(sum[:]), Key: buyer + ":PO-0002:orders:1", SenderID: buyer, BusinessID: "PO-0002",
		RecipientID: supplier, ControlRef: "R0002", DocNumbers: []string{"PO-0002"}, N: 1, Outcome: spool.OutcomePending}
	require.NoError(t, s.AppendUpload(rec))
	check("a pending record")
	rec.Outcome, rec.HTTPStatus, rec.UploadID, rec.Time = spool.OutcomeAccepted, 202, "up-PO-0002", t0.Add(2*time.Minute)
	require.NoError(t, s.AppendUpload(rec))
	check("its result, the pending record read before")
	got, err := x.Backend().Match(t.Context(), Match{Value: norm("PO-0002"), Kinds: []KeyKind{KeyPO}})
	require.NoError(t, err)
	require.Len(t, got, 1, "one attempt")
	assert.Equal(t, "accepted", got[0].State)

	seen := spool.SeenRecord{Time: t0, ConnectionID: "conn-a", DeliveryAttemptID: "d-9", State: spool.SeenClaimed}
	require.NoError(t, s.NoteSeen(seen))
	check("a claim")
	seen.State, seen.Time, seen.Checks = spool.SeenRefused, t0.Add(time.Second), []string{"SHA-256 differs"}
	require.NoError(t, s.NoteSeen(seen))
	check("the same delivery refused")

	// a torn line at the end: read again once a later append completes it
	hp := filepath.Join(dir, "conn-a", "uploads.jsonl")
	f, err := os.OpenFile(hp, os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-03-12T10:40:00Z","connectionId":"conn-a","key":"x`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	check("a torn line")
	rec.Key, rec.BusinessID, rec.DocNumbers, rec.UploadID = buyer+":PO-0003:orders:1", "PO-0003", []string{"PO-0003"}, "up-PO-0003"
	require.NoError(t, s.AppendUpload(rec)) // cuts the torn line first
	check("after the torn line")
	got, err = x.Backend().Match(t.Context(), Match{Value: norm("PO-0003"), Kinds: []KeyKind{KeyPO}})
	require.NoError(t, err)
	require.Len(t, got, 1)
}

// TestUploadFoundBySHA256: the SHA-256 of the bytes sent finds the
// upload (the resend guard's lookup), and the item carries its record
// with the time its bytes began to leave.
func TestUploadFoundBySHA256(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	rec := uploaded(t, s, "conn-a", "R0001", "PO-0001", ordersIC("R0001", "PO-0001"), t0, spool.OutcomeAccepted)
	x, err := Open(t.Context(), Options{Dir: dir, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	defer x.Close()
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	got, err := x.Backend().Match(t.Context(), Match{Value: norm(rec.SHA256), Kinds: []KeyKind{KeyID}, Conn: "conn-a"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	d, ok := got[0].upload()
	require.True(t, ok)
	require.NotNil(t, d.Rec)
	assert.Equal(t, rec.Key, d.Rec.Key)
	assert.Equal(t, "up-PO-0001", d.Rec.UploadID)
	assert.True(t, d.Started.Equal(t0), "the pending record's time")
}

// TestNewAttemptReadsOnlyItsLines: a sync after an upload of a new
// attempt reads the lines the history grew by, not the history before
// them (a new attempt has no part, so no earlier lines); a retry of an
// attempt already indexed reads the history once for its earlier lines.
// Both times the index equals a rebuild's.
func TestNewAttemptReadsOnlyItsLines(t *testing.T) {
	dir := t.TempDir()
	s, err := spool.Open(dir)
	require.NoError(t, err)
	at := t0
	for i := range 200 {
		doc := fmt.Sprintf("PO-%04d", i)
		uploaded(t, s, "conn-a", fmt.Sprintf("R%04d", i), doc, ordersIC(fmt.Sprintf("R%04d", i), doc), at, spool.OutcomeAccepted)
		at = at.Add(time.Minute)
	}
	x, err := Open(t.Context(), Options{Dir: dir, Now: func() time.Time { return at }})
	require.NoError(t, err)
	defer x.Close()
	_, err = x.Sync(t.Context())
	require.NoError(t, err)
	hp := filepath.Join(dir, "conn-a", "uploads.jsonl")
	size := func() int64 {
		fi, err := os.Stat(hp)
		require.NoError(t, err)
		return fi.Size()
	}
	check := func(step string) int64 {
		t.Helper()
		before := journalBytesRead.Load()
		require.NoError(t, x.IndexHistory(t.Context(), dir, "conn-a"))
		read := journalBytesRead.Load() - before
		inc := dump(t, x)
		_, err := x.Rebuild(t.Context(), "test")
		require.NoError(t, err)
		require.Equal(t, dump(t, x), inc, step)
		return read
	}

	grown := size()
	rec := uploaded(t, s, "conn-a", "R9999", "PO-9999", ordersIC("R9999", "PO-9999"), at, spool.OutcomeAccepted)
	appended := size() - grown
	assert.Equal(t, appended+1, check("a new attempt"), "its two lines and the newline before them")
	assert.Less(t, appended*50, grown, "the history is much larger than what was read")

	rec.Time, rec.Replay = at.Add(time.Minute), true // the same key and bytes sent again
	require.NoError(t, s.AppendUpload(rec))
	assert.Equal(t, size()+1, check("a replay of an indexed attempt"), "its earlier lines: the history once")
}
