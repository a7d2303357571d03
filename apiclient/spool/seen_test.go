package spool

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSeenJournal(t *testing.T) {
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	at := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return at })
	require.NoError(t, s.NoteSeen(SeenRecord{ConnectionID: "c1", DeliveryAttemptID: "d1", State: SeenRefused, Checks: []string{"hashHeader"}}))
	require.NoError(t, s.NoteSeen(SeenRecord{ConnectionID: "c1", DeliveryAttemptID: "d2", State: SeenClaimed}))
	require.Error(t, s.NoteSeen(SeenRecord{DeliveryAttemptID: "d3"}), "a record needs its connection")
	// a torn last line (a crash mid-write) is skipped, the rest read
	f, err := os.OpenFile(s.SeenPath("c1"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-03-12T10:00:00Z","connectionId":"c1","deliv`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	recs, err := s.Seen("c1")
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, SeenRecord{Time: at, ConnectionID: "c1", DeliveryAttemptID: "d1", State: SeenRefused, Checks: []string{"hashHeader"}}, recs[0])
	require.Equal(t, SeenClaimed, recs[1].State)
	fi, err := os.Stat(s.SeenPath("c1"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(filePerm), fi.Mode().Perm())
	none, err := s.Seen("other")
	require.NoError(t, err)
	require.Empty(t, none)
}
