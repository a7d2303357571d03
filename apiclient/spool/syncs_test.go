package spool

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One stored delivery costs two file fsyncs (payload and sidecar, made
// at once) and one directory fsync for both renames; recording its
// receipt one file and one directory fsync. Before, each of the three
// writes had its own pair (3 + 3).
func TestSyncsPerDelivery(t *testing.T) {
	s := newStore(t)
	_, err := store(t, s, "c", "warm", []byte("x")) // creates the directories
	require.NoError(t, err)
	before := Syncs()
	st, err := store(t, s, "c", "da", []byte("payload"))
	require.NoError(t, err)
	afterStore := Syncs()
	require.Equal(t, SyncCounts{Files: 2, Dirs: 1}, SyncCounts{afterStore.Files - before.Files, afterStore.Dirs - before.Dirs})
	_, err = s.MarkAcknowledged("c", "da", "rcpt-1", time.Now())
	require.NoError(t, err)
	afterAck := Syncs()
	require.Equal(t, SyncCounts{Files: 1, Dirs: 1}, SyncCounts{afterAck.Files - afterStore.Files, afterAck.Dirs - afterStore.Dirs})
	// Both names are in place, no temp file is left.
	require.FileExists(t, st.Path)
	got, err := s.Lookup("c", "da")
	require.NoError(t, err)
	require.Equal(t, "rcpt-1", got.Meta.ReceiptID)
	for _, n := range files(t, filepath.Dir(st.Path)) {
		require.False(t, isTempName(n), n)
	}
}

// A sidecar whose payload is missing (a crash after both renames before
// the directory fsync, where only the sidecar's rename survived) is not a
// stored delivery: the next download stores it again.
func TestSidecarWithoutPayloadIsStoredAgain(t *testing.T) {
	s := newStore(t)
	st, err := store(t, s, "c", "da", []byte("payload"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(st.Path))
	again, err := store(t, s, "c", "da", []byte("payload"))
	require.NoError(t, err)
	require.False(t, again.AlreadyStored)
	b, err := os.ReadFile(again.Path)
	require.NoError(t, err)
	require.Equal(t, "payload", string(b))
}
