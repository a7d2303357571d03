package spool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestKeyHistoryCountsTheTeamsUploads(t *testing.T) {
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	t0 := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	alice := []UploadRecord{
		{Time: t0, ConnectionID: "c", Key: "S:PO-4711:orders:1", SenderID: "S", BusinessID: "PO-4711", SHA256: "aa", N: 1, Outcome: OutcomePending},
		{Time: t0.Add(time.Second), ConnectionID: "c", Key: "S:PO-4711:orders:1", SenderID: "S", BusinessID: "PO-4711", SHA256: "aa", N: 1, Outcome: OutcomeAccepted},
	}
	req := KeyRequest{SenderID: "S", BusinessID: "PO-4711", SHA256: "bb"}
	keyFor := func(n int) (string, error) { return "S:PO-4711:orders:" + string(rune('0'+n)), nil }
	// without the team's lines this machine starts at 1
	d, _, err := s.ReserveUpload(req, UploadRecord{ConnectionID: "c"}, keyFor)
	require.NoError(t, err)
	require.Equal(t, 1, d.N)

	s2, err := Open(t.TempDir())
	require.NoError(t, err)
	s2.SetSharedUploads(func(conn string) ([]UploadRecord, error) {
		require.Equal(t, "c", conn)
		return alice, nil
	})
	d, rec, err := s2.ReserveUpload(req, UploadRecord{ConnectionID: "c"}, keyFor)
	require.NoError(t, err)
	require.Equal(t, NextPayload, d.Kind)
	require.Equal(t, 2, d.N, "the next key after the team's :1")
	require.Equal(t, "S:PO-4711:orders:2", rec.Key)
	h, err := s2.KeyHistory("c")
	require.NoError(t, err)
	require.Len(t, h, 3)
	// a line both here and in the team store counts once
	require.Len(t, MergeHistories(alice, alice), 2)
}
