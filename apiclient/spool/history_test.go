package spool

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func rec(n int, sha string, o Outcome) UploadRecord {
	return UploadRecord{ConnectionID: "c", SenderID: "S", BusinessID: "B", N: n, SHA256: sha, Outcome: o, Key: fmt.Sprintf("S:B:orders:%d", n)}
}

func TestDecide(t *testing.T) {
	other := UploadRecord{ConnectionID: "c", SenderID: "S", BusinessID: "OTHER", N: 7, SHA256: "aa", Outcome: OutcomeAccepted}
	typed := UploadRecord{ConnectionID: "c", SenderID: "S", BusinessID: "B", N: 0, SHA256: "zz", Outcome: OutcomeAccepted, Key: "typed"}
	for _, tc := range []struct {
		name    string
		hist    []UploadRecord
		sha     string
		choice  Choice
		kind    DecisionKind
		n       int
		replayN int
		newN    int
	}{
		{"empty history", nil, "aa", ChoiceAsk, FirstUpload, 1, 0, 0},
		{"other business id and typed keys ignored", []UploadRecord{other, typed}, "zz", ChoiceAsk, FirstUpload, 1, 0, 0},
		{"changed payload gets next n", []UploadRecord{rec(1, "aa", OutcomePending), rec(1, "aa", OutcomeAccepted)}, "bb", ChoiceAsk, NextPayload, 2, 0, 0},
		{"crash mid-send reuses key", []UploadRecord{rec(1, "aa", OutcomeAccepted), rec(2, "bb", OutcomePending)}, "BB", ChoiceAsk, Retry, 2, 0, 0},
		{"network failure reuses key", []UploadRecord{rec(1, "aa", OutcomePending), rec(1, "aa", OutcomeUnclear)}, "aa", ChoiceNew, Retry, 1, 0, 0},
		{"definitive failure reuses key", []UploadRecord{rec(1, "aa", OutcomeFailed)}, "aa", ChoiceAsk, Retry, 1, 0, 0},
		{"accepted needs a choice", []UploadRecord{rec(1, "aa", OutcomeAccepted), rec(2, "bb", OutcomeAccepted)}, "aa", ChoiceAsk, NeedChoice, 0, 1, 3},
		{"accepted, replay", []UploadRecord{rec(1, "aa", OutcomeAccepted), rec(2, "bb", OutcomeAccepted)}, "aa", ChoiceReplay, Replay, 1, 1, 3},
		{"accepted, new", []UploadRecord{rec(1, "aa", OutcomeAccepted), rec(2, "bb", OutcomeAccepted)}, "aa", ChoiceNew, NewUpload, 3, 1, 3},
		{"latest attempt of re-sent bytes counts", []UploadRecord{rec(1, "aa", OutcomeAccepted), rec(2, "aa", OutcomePending)}, "aa", ChoiceAsk, Retry, 2, 0, 0},
		{"409 moves on", []UploadRecord{rec(1, "aa", OutcomeConflict)}, "aa", ChoiceAsk, AfterConflict, 2, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.hist, KeyRequest{SenderID: "S", BusinessID: "B", SHA256: tc.sha, Choice: tc.choice})
			require.Equal(t, tc.kind, d.Kind, d.Explain())
			require.Equal(t, tc.n, d.N)
			require.Equal(t, tc.replayN, d.ReplayN)
			require.Equal(t, tc.newN, d.NewN)
			require.NotEmpty(t, d.Explain())
			if tc.kind == Retry || tc.kind == NeedChoice {
				require.NotNil(t, d.Previous)
			}
		})
	}
}

func keyFor(n int) (string, error) { return fmt.Sprintf("S:B:orders:%d", n), nil }

func TestReserveUploadFlow(t *testing.T) {
	s := newStore(t)
	req := KeyRequest{SenderID: "S", BusinessID: "B", SHA256: "aa"}
	base := UploadRecord{ConnectionID: "c", File: "o.edi", Size: 10}

	d, r, err := s.ReserveUpload(req, base, keyFor)
	require.NoError(t, err)
	require.Equal(t, FirstUpload, d.Kind)
	require.Equal(t, "S:B:orders:1", r.Key)
	require.Equal(t, OutcomePending, r.Outcome)

	done := *r
	done.Outcome, done.HTTPStatus, done.UploadID = OutcomeAccepted, 202, "up-1"
	require.NoError(t, s.AppendUpload(done))

	d, r, err = s.ReserveUpload(req, base, keyFor)
	require.NoError(t, err)
	require.Equal(t, NeedChoice, d.Kind)
	require.Nil(t, r, "nothing reserved before the operator chose")

	req.Choice = ChoiceNew
	d, r, err = s.ReserveUpload(req, base, keyFor)
	require.NoError(t, err)
	require.Equal(t, NewUpload, d.Kind)
	require.Equal(t, "S:B:orders:2", r.Key)

	hist, err := s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, hist, 3)
	require.Equal(t, "up-1", hist[1].UploadID)
	require.Equal(t, "o.edi", hist[2].File)
	require.False(t, hist[2].Time.IsZero())
}

func TestReserveUploadConcurrentDistinctNumbers(t *testing.T) {
	s := newStore(t)
	const workers = 12
	var wg sync.WaitGroup
	ns := make(chan int, workers)
	errs := make(chan error, workers)
	for i := range workers {
		wg.Go(func() {
			// A separate Store per goroutine, like separate processes.
			// require must not run here (FailNow only works on the test
			// goroutine): report errors back instead.
			s2, err := Open(s.Root())
			if err != nil {
				errs <- fmt.Errorf("worker %d: open: %w", i, err)
				return
			}
			_, r, err := s2.ReserveUpload(KeyRequest{SenderID: "S", BusinessID: "B", SHA256: fmt.Sprintf("%02x", i)},
				UploadRecord{ConnectionID: "c"}, keyFor)
			switch {
			case err != nil:
				errs <- fmt.Errorf("worker %d: reserve: %w", i, err)
			case r == nil:
				errs <- fmt.Errorf("worker %d: reserve returned no record", i)
			default:
				ns <- r.N
			}
		})
	}
	wg.Wait()
	close(ns)
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var got []int
	for n := range ns {
		got = append(got, n)
	}
	sort.Ints(got)
	want := make([]int, workers)
	for i := range want {
		want[i] = i + 1
	}
	require.Equal(t, want, got)
}

func TestHistoryTornAndCorruptLines(t *testing.T) {
	s := newStore(t)
	require.NoError(t, s.AppendUpload(rec(1, "aa", OutcomeAccepted)))
	path := s.historyPath("c")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2025-01-01T00:00:00Z","connectionId":"c","n":2,"sha`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	hist, err := s.Uploads("c")
	require.NoError(t, err, "a torn last line is a crash artefact, not corruption")
	require.Len(t, hist, 1)

	require.NoError(t, s.AppendUpload(rec(2, "bb", OutcomeAccepted)))
	hist, err = s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, hist, 2, "the torn tail was cut before appending")
	require.Equal(t, 2, hist[1].N)

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append([]byte("garbage\n"), b...), 0o600))
	_, err = s.Uploads("c")
	require.ErrorContains(t, err, "line 1 is corrupt")
	_, _, err = s.ReserveUpload(KeyRequest{SenderID: "S", BusinessID: "B", SHA256: "cc"}, UploadRecord{ConnectionID: "c"}, keyFor)
	require.Error(t, err, "no key is handed out from a corrupt history")
}

// TestReserveUploadAcrossProcesses runs the reservation in several real
// processes (this test binary re-executed) against one spool: the flock
// must hand out every number exactly once.
func TestReserveUploadAcrossProcesses(t *testing.T) {
	if root := os.Getenv("SPOOL_HELPER_ROOT"); root != "" {
		s, err := Open(root)
		require.NoError(t, err)
		for i := range 5 {
			_, _, err := s.ReserveUpload(KeyRequest{SenderID: "S", BusinessID: "B", SHA256: fmt.Sprintf("%s-%d", os.Getenv("SPOOL_HELPER_ID"), i)},
				UploadRecord{ConnectionID: "c"}, keyFor)
			require.NoError(t, err)
		}
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	s := newStore(t)
	const procs = 4
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestReserveUploadAcrossProcesses$", "-test.count=1")
		cmds[i].Env = append(os.Environ(), "SPOOL_HELPER_ROOT="+s.Root(), fmt.Sprintf("SPOOL_HELPER_ID=p%d", i),
			"GORACE=atexit_sleep_ms=0") // a race-enabled child would sleep 1 s at exit
		require.NoError(t, cmds[i].Start())
	}
	for _, c := range cmds {
		require.NoError(t, c.Wait())
	}
	hist, err := s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, hist, procs*5)
	var got []int
	for _, r := range hist {
		got = append(got, r.N)
	}
	sort.Ints(got)
	for i, n := range got {
		require.Equal(t, i+1, n)
	}
}

// TestHistoryLinkFields: the envelope facts of an upload survive the
// round trip, and a line written before they existed still loads.
func TestHistoryLinkFields(t *testing.T) {
	s := newStore(t)
	r := rec(1, "aa", OutcomeAccepted)
	r.RecipientID, r.ControlRef, r.DocNumbers = "4098765000003", "REF1", []string{"PO-1", "PO-2"}
	require.NoError(t, s.AppendUpload(r))
	f, err := os.OpenFile(s.historyPath("c"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2025-01-01T00:00:00Z","connectionId":"c","file":"/x/old.edi","size":9,"sha256":"bb","key":"S:B:orders:2","senderId":"S","businessId":"B","n":2,"outcome":"accepted","httpStatus":202,"uploadId":"up-old"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	hist, err := s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, hist, 2)
	require.Equal(t, "4098765000003", hist[0].RecipientID)
	require.Equal(t, "REF1", hist[0].ControlRef)
	require.Equal(t, []string{"PO-1", "PO-2"}, hist[0].DocNumbers)
	require.Equal(t, "up-old", hist[1].UploadID)
	require.Empty(t, hist[1].ControlRef)
	require.Nil(t, hist[1].DocNumbers)

	// ReserveUpload keeps the caller's envelope facts in the pending record.
	base := UploadRecord{ConnectionID: "c", RecipientID: "R", ControlRef: "REF2", DocNumbers: []string{"PO-9"}}
	_, got, err := s.ReserveUpload(KeyRequest{SenderID: "S", BusinessID: "PO-9", SHA256: "cc"}, base, keyFor)
	require.NoError(t, err)
	require.Equal(t, "REF2", got.ControlRef)
	hist, err = s.Uploads("c")
	require.NoError(t, err)
	require.Equal(t, []string{"PO-9"}, hist[2].DocNumbers)
	require.Equal(t, "R", hist[2].RecipientID)
}

func TestAttempts(t *testing.T) {
	pend := func(n int, sha string) UploadRecord { return rec(n, sha, OutcomePending) }
	done := func(n int, sha string, o Outcome, id string) UploadRecord {
		r := rec(n, sha, o)
		r.UploadID = id
		return r
	}
	hist := []UploadRecord{
		pend(1, "aa"), done(1, "aa", OutcomeUnclear, ""), // a network failure
		pend(1, "aa"), done(1, "AA", OutcomeAccepted, "up-1"), // its retry (hash case differs)
		pend(2, "bb"),                          // still running, or the process died
		done(3, "cc", OutcomeAccepted, "up-3"), // a result without reservation
	}
	got := Attempts(hist)
	require.Len(t, got, 4)
	require.Equal(t, OutcomeUnclear, got[0].Outcome)
	require.Equal(t, OutcomeAccepted, got[1].Outcome)
	require.Equal(t, "up-1", got[1].UploadID)
	require.Equal(t, OutcomePending, got[2].Outcome)
	require.Equal(t, "up-3", got[3].UploadID)
	require.Empty(t, Attempts(nil))
}

// TestUploadsParsedOnceAndFresh: a second read of an unchanged history
// is the same records (a copy: changing it changes nothing), and an
// append is seen at once.
func TestUploadsParsedOnceAndFresh(t *testing.T) {
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, s.AppendUpload(UploadRecord{ConnectionID: "c", Key: "k:1", N: 1, Outcome: OutcomePending}))
	a, err := s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, a, 1)
	a[0].Key = "changed"
	b, err := s.Uploads("c")
	require.NoError(t, err)
	require.Equal(t, "k:1", b[0].Key)
	require.NoError(t, s.AppendUpload(UploadRecord{ConnectionID: "c", Key: "k:1", N: 1, Outcome: OutcomeAccepted}))
	c, err := s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, c, 2)
	other, err := Open(s.Root()) // another process's store sees it too
	require.NoError(t, err)
	require.NoError(t, other.AppendUpload(UploadRecord{ConnectionID: "c", Key: "k:2", N: 2, Outcome: OutcomePending}))
	d, err := s.Uploads("c")
	require.NoError(t, err)
	require.Len(t, d, 3)
}
