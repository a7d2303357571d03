package orders

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// The kept pick (newest.jsonl and the lines appended since) is the pick
// made afresh from the history's end, after every step of a history of
// more than MaxHistory payloads: uploads, replays, resends of the same
// bytes, refused and unclear outcomes, a crash mid-send or mid-append,
// the history rewritten; and, in the seeds with held results, the result
// of an attempt whose pending line came before the last pick (then it is
// picked afresh: compared at that step only, since a fresh pick from the
// end of a longer history may read that result without its pending line
// and place it otherwise).
func TestKeptPickIsAFreshPick(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 5))
			dir := t.TempDir()
			s, err := spool.Open(dir)
			require.NoError(t, err)
			const conn = "conn-p"
			at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
			var sent []spool.UploadRecord
			var held []spool.UploadRecord // pending lines whose result comes after the next pick
			if seed > 3 {
				held = []spool.UploadRecord{}
			}
			fallbacks, released, afresh0, heldPicked := 0, false, int64(-1), false
			upload := func(rec spool.UploadRecord, outcome spool.Outcome) spool.UploadRecord {
				rec.Time, rec.Outcome = at, spool.OutcomePending
				require.NoError(t, s.AppendUpload(rec))
				at = at.Add(time.Second)
				rec.Time, rec.Outcome = at, outcome
				return rec
			}
			afterTorn, heldLost := false, false
			for step := 0; step < 520; step++ {
				at = at.Add(time.Duration(1+r.IntN(90)) * time.Second)
				torn := afterTorn
				switch k := r.IntN(20); {
				case k < 14 || len(sent) == 0: // a new order
					doc := fmt.Sprintf("PO-%04d", step)
					rec := spool.UploadRecord{ConnectionID: conn, File: "/orders/" + doc + ".edi", SHA256: fmt.Sprintf("%064x", step+1),
						Key: "4012345000009:" + doc + ":orders:1", SenderID: "4012345000009", BusinessID: doc, N: 1}
					outcome := []spool.Outcome{spool.OutcomeAccepted, spool.OutcomeAccepted, spool.OutcomeAccepted, spool.OutcomeConflict, spool.OutcomeUnclear}[r.IntN(5)]
					res := upload(rec, outcome)
					if held != nil && r.IntN(8) == 0 { // its result after the next pick
						held = append(held, res)
						heldLost = heldLost || afterTorn // its pending line was joined to a torn one: unreadable
						afterTorn = false
						break
					}
					require.NoError(t, s.AppendUpload(res))
					sent = append(sent, res)
				case k < 16: // a replay or a resend of bytes sent before
					old := sent[r.IntN(len(sent))]
					if r.IntN(2) == 0 {
						old.Key = old.Key + "-2" // a new key for the same bytes
					}
					res := upload(old, spool.OutcomeAccepted)
					require.NoError(t, s.AppendUpload(res))
					sent = append(sent, res)
				case k < 17: // a crash mid-send: a pending line only
					doc := fmt.Sprintf("PO-X%04d", step)
					upload(spool.UploadRecord{ConnectionID: conn, SHA256: fmt.Sprintf("%064x", 100000+step), Key: "k:" + doc, BusinessID: doc}, spool.OutcomeAccepted)
				case k < 18 && len(held) > 0: // the held results arrive
					for _, h := range held {
						require.NoError(t, s.AppendUpload(h))
						sent = append(sent, h)
					}
					afresh0 = -1
					if heldPicked && !heldLost { // a pick saw a held pending line: its result cannot be added to that pick
						afresh0 = pickedAfresh.Load()
					}
					heldPicked, heldLost = false, false
					held = held[:0]
					fallbacks++
					released = true
				case k < 19: // a torn line (a crash mid-append), then more lines
					f, err := os.OpenFile(filepath.Join(dir, spool.SafeName(conn), "uploads.jsonl"), os.O_APPEND|os.O_WRONLY, 0o600)
					require.NoError(t, err)
					_, err = f.WriteString(`{"time":"2026-03-12T08:00:00Z","key":"torn`)
					require.NoError(t, err)
					require.NoError(t, f.Close())
					afterTorn = true
				default: // the history rewritten (restored from a backup): the same lines, the last one gone
					hp := filepath.Join(dir, spool.SafeName(conn), "uploads.jsonl")
					data, err := os.ReadFile(hp)
					require.NoError(t, err)
					if i := lastLineStart(data); i > 0 {
						require.NoError(t, os.WriteFile(hp, data[:i], 0o600))
						heldLost = heldLost || len(held) > 0 // that line may be a held pending one
					}
				}
				if torn && afterTorn { // the line after the torn one was written by this step
					afterTorn = false
				}
				if r.IntN(3) == 0 && !released {
					continue // picks happen after some steps only
				}
				kept, err := pickNewest(s, conn)
				require.NoError(t, err)
				heldPicked = heldPicked || len(held) > 0 && !released
				if held != nil && !released {
					continue // compared when the held results come
				}
				if released && afresh0 >= 0 {
					require.Greater(t, pickedAfresh.Load(), afresh0, "step %d: the held result made a fresh pick", step)
				}
				released, afresh0 = false, -1
				fresh, err := pickFresh(s, conn)
				require.NoError(t, err)
				ks, kn := kept.selection()
				fs, fn := fresh.selection()
				if !assertSameSHAs(t, fs.SHAs, ks.SHAs) {
					data, _ := os.ReadFile(filepath.Join(dir, spool.SafeName(conn), "uploads.jsonl"))
					i := 0
					for i < min(len(fs.SHAs), len(ks.SHAs)) && fs.SHAs[i] == ks.SHAs[i] {
						i++
					}
					t.Fatalf("step %d: fresh %d, kept %d payloads, first difference at %d (%v / %v); history %d bytes", step, len(fs.SHAs), len(ks.SHAs),
						i, fs.SHAs[i:min(i+3, len(fs.SHAs))], ks.SHAs[i:min(i+3, len(ks.SHAs))], len(data))
				}
				require.True(t, fs.Since.Equal(ks.Since), "step %d: since %s / %s", step, fs.Since, ks.Since)
				for h, rec := range fn {
					require.Equal(t, rec.Key, kn[h].Key, "step %d", step)
					require.Equal(t, rec.File, kn[h].File, "step %d", step)
				}
			}
			if seed > 3 {
				require.Positive(t, fallbacks)
			}
			p, err := pickNewest(s, conn)
			require.NoError(t, err)
			require.Len(t, p.want, min(MaxHistory, distinctAccepted(t, s, conn)))
		})
	}
}

// lastLineStart is where the last complete line of data starts.
func lastLineStart(data []byte) int {
	end := len(data) - 1
	for end >= 0 && data[end] != '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if data[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// A kept pick is read from the lines appended since, not from the
// history's end: one upload reads its own two lines.
func TestKeptPickReadsOnlyTheNewLines(t *testing.T) {
	s := historyStore(t, 6, 2)
	first, err := pickNewest(s, resendConn)
	require.NoError(t, err)
	require.NotEmpty(t, first.want)
	path := filepath.Join(filepath.Dir(s.SeenPath(resendConn)), newestName)
	_, err = os.Stat(path)
	require.NoError(t, err, "the pick is kept")
	kept, ok := readPicked(path)
	require.True(t, ok)
	require.Equal(t, first.want, kept.want)
	require.Equal(t, first.mark, kept.mark)
	// a damaged kept pick is picked afresh
	require.NoError(t, os.WriteFile(path, []byte("{\"version\":1,\"size\":5}\n{\"s\":\"short\"}\n"), 0o600))
	again, err := pickNewest(s, resendConn)
	require.NoError(t, err)
	require.Equal(t, first.want, again.want)
}

func assertSameSHAs(t *testing.T, want, got []string) bool {
	t.Helper()
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i] != got[i] {
			return false
		}
	}
	return true
}

func distinctAccepted(t *testing.T, s *spool.Store, conn string) int {
	t.Helper()
	hist, err := s.Uploads(conn)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, a := range spool.Attempts(hist) {
		if a.Outcome == spool.OutcomeAccepted {
			seen[a.SHA256] = true
		}
	}
	return len(seen)
}
