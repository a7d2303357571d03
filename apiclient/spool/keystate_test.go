package spool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// keyRecordsLocked is keyRecords under the connection lock.
func keyRecordsLocked(t *testing.T, s *Store, conn, sender, business string) []UploadRecord {
	t.Helper()
	unlock, err := s.lockConn(conn)
	require.NoError(t, err)
	defer unlock()
	got, err := s.keyRecords(conn, sender, business)
	require.NoError(t, err)
	return got
}

// fullParse is what key plans read without the key state: every line of
// the history, filtered to one sender and business id.
func fullParse(t *testing.T, s *Store, conn, sender, business string) []UploadRecord {
	t.Helper()
	b, err := os.ReadFile(s.historyPath(conn))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	all, err := parseHistory("h", b)
	require.NoError(t, err)
	var out []UploadRecord
	for _, r := range all {
		if r.SenderID == sender && r.BusinessID == business {
			out = append(out, r)
		}
	}
	return out
}

// TestReserveUploadDoesNotReparseTheHistory: the key reservation of one
// upload decodes the lines appended since the last one, not the whole
// history (issue 23 §1: 50,000 uploads were parsed under the lock for
// every upload).
func TestReserveUploadDoesNotReparseTheHistory(t *testing.T) {
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	const n = 300
	for i := range n {
		require.NoError(t, s.AppendUpload(UploadRecord{ConnectionID: "c", SenderID: "S", BusinessID: fmt.Sprintf("PO-%d", i), N: 1,
			SHA256: fmt.Sprintf("%064x", i), Key: fmt.Sprintf("S:PO-%d:orders:1", i), Outcome: OutcomeAccepted}))
	}
	keyFor := func(n int) (string, error) { return fmt.Sprintf("S:PO-7:orders:%d", n), nil }
	reserve := func(sha string) KeyDecision {
		d, rec, err := s.ReserveUpload(KeyRequest{SenderID: "S", BusinessID: "PO-7", SHA256: sha}, UploadRecord{ConnectionID: "c", File: "f"}, keyFor)
		require.NoError(t, err)
		require.NotNil(t, rec)
		return d
	}
	require.Equal(t, NextPayload, reserve("bb").Kind) // builds the key state: the whole history, once
	other, err := Open(s.Root())                      // another process appends meanwhile
	require.NoError(t, err)
	require.NoError(t, other.AppendUpload(UploadRecord{ConnectionID: "c", SenderID: "S", BusinessID: "PO-7", N: 2, SHA256: "bb", Key: "S:PO-7:orders:2", Outcome: OutcomeAccepted}))
	before := historyLinesDecoded.Load()
	d := reserve("cc")
	require.Equal(t, NextPayload, d.Kind)
	require.Equal(t, 3, d.N)
	require.LessOrEqual(t, historyLinesDecoded.Load()-before, int64(3), "lines decoded by one reservation over %d uploads", n)
	// the same decision a full parse gives
	req := KeyRequest{SenderID: "S", BusinessID: "PO-7", SHA256: "cc"}
	all, err := s.Uploads("c")
	require.NoError(t, err)
	require.Equal(t, Decide(all, req), Decide(keyRecordsLocked(t, s, "c", "S", "PO-7"), req))
}

// TestKeyStateEqualsFullParse: after random appends by two writers, torn
// tails (a crash mid-append), a fold that crashed before its meta file,
// a damaged shard and a history replaced by another, the key state's
// records of every sender and business id are the full parse's.
func TestKeyStateEqualsFullParse(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 23))
			root := t.TempDir()
			a, err := Open(root)
			require.NoError(t, err)
			b, err := Open(root)
			require.NoError(t, err)
			hist := a.historyPath("c")
			dir := a.keyDir("c")
			bids := []string{"PO-1", "PO-2", "PO-3", "PO-4", "PO-5"}
			check := func(step int) {
				for _, bid := range bids {
					for _, snd := range []string{"S", "T"} {
						want := fullParse(t, a, "c", snd, bid)
						got := keyRecordsLocked(t, []*Store{a, b}[rng.IntN(2)], "c", snd, bid)
						require.Equal(t, len(want), len(got), "step %d %s %s", step, snd, bid)
						for i := range want {
							require.Equal(t, want[i].Key, got[i].Key, "step %d %s %s #%d", step, snd, bid, i)
							require.Equal(t, want[i].Outcome, got[i].Outcome, "step %d %s %s #%d", step, snd, bid, i)
							require.Equal(t, want[i].SHA256, got[i].SHA256, "step %d %s %s #%d", step, snd, bid, i)
						}
					}
				}
			}
			for step := range 60 {
				switch op := rng.IntN(10); {
				case op < 6: // an append by either writer
					w := []*Store{a, b}[rng.IntN(2)]
					bid := bids[rng.IntN(len(bids))]
					n := rng.IntN(4)
					require.NoError(t, w.AppendUpload(UploadRecord{ConnectionID: "c", SenderID: []string{"S", "T"}[rng.IntN(2)], BusinessID: bid, N: n,
						SHA256: fmt.Sprintf("%02x", rng.IntN(4)), Key: fmt.Sprintf("k:%s:%d", bid, n),
						Outcome: []Outcome{OutcomePending, OutcomeAccepted, OutcomeConflict, OutcomeUnclear}[rng.IntN(4)]}))
				case op == 6: // a crash mid-append: a torn last line
					f, err := os.OpenFile(hist, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
					require.NoError(t, err)
					_, err = f.WriteString(`{"time":"2026-12-02T10:00:00Z","connectionId":"c","senderId":"S","businessId":"PO-1","n":9,"outc`)
					require.NoError(t, err)
					require.NoError(t, f.Close())
				case op == 7: // a fold that crashed before the meta file: the new line's entry is in its shard, the offset is old
					m, ok := readKeyMeta(dir)
					fi, err := os.Stat(hist)
					if ok && err == nil && fi.Size() == m.Offset {
						r := UploadRecord{ConnectionID: "c", SenderID: "S", BusinessID: "PO-1", N: 3, SHA256: "01", Key: "k:PO-1:3", Outcome: OutcomeAccepted}
						require.NoError(t, a.AppendUpload(r))
						ents, err := readShard(dir, m, shardOf("S", "PO-1"))
						require.NoError(t, err)
						ents = append(ents, keyEntry{Off: m.Offset, Rec: r})
						_, err = writeKeyShard(dir, shardOf("S", "PO-1"), ents)
						require.NoError(t, err)
					}
				case op == 8: // a damaged shard
					if _, err := os.Stat(dir); err == nil {
						require.NoError(t, os.WriteFile(filepath.Join(dir, shardName(shardOf("S", bids[rng.IntN(len(bids))]))), []byte("{not json"), 0o600))
					}
				default: // the history replaced by another of the same size or longer
					if data, err := os.ReadFile(hist); err == nil && len(data) > 0 {
						all, err := parseHistory("h", data)
						require.NoError(t, err)
						var out []byte
						for i := len(all) - 1; i >= 0; i-- { // the same lines, reversed
							line, err := jsonLine(all[i])
							require.NoError(t, err)
							out = append(out, line...)
						}
						require.NoError(t, os.WriteFile(hist, out, 0o600))
					}
				}
				check(step)
			}
		})
	}
}

func jsonLine(r UploadRecord) ([]byte, error) {
	b, err := json.Marshal(r)
	return append(b, '\n'), err
}

// The meta file reads back as written; a damaged or cut one is refused
// (the state is then rebuilt), never misread.
func TestKeyMetaReadsBack(t *testing.T) {
	dir := t.TempDir()
	m := keyMeta{Version: keyStateVersion, Offset: 123456, Tail: []byte(`{"key":"k"}` + "\n"), Shards: map[int]uint32{0: 0, 7: 0xffffffff, 255: 42}}
	require.NoError(t, writeKeyMeta(dir, m))
	got, ok := readKeyMeta(dir)
	require.True(t, ok)
	require.Equal(t, m, got)
	b, err := os.ReadFile(filepath.Join(dir, keyMetaName))
	require.NoError(t, err)
	for i := range b {
		bad := bytes.Clone(b)
		bad[i] ^= 0x10
		require.NoError(t, os.WriteFile(filepath.Join(dir, keyMetaName), bad, 0o600))
		_, ok := readKeyMeta(dir)
		require.False(t, ok, "byte %d flipped", i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, keyMetaName), b[:i], 0o600))
		_, ok = readKeyMeta(dir)
		require.False(t, ok, "cut at %d", i)
	}
}

// digits reads what strconv.AppendUint writes, and nothing else.
func TestDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		v := r.Uint64() >> r.IntN(64)
		for _, base := range []uint64{10, 16} {
			got, ok := digits(strconv.AppendUint(nil, v, int(base)), base)
			require.True(t, ok)
			require.Equal(t, v, got)
		}
	}
	for _, bad := range []string{"", "01", "-1", "+1", "1a", "18446744073709551616", " 1", "A"} {
		_, ok := digits([]byte(bad), 10)
		require.False(t, ok, "%q", bad)
	}
	_, ok := digits([]byte("10000000000000000"), 16)
	require.False(t, ok, "65 bits")
	_, ok = digits([]byte("ffffffffffffffff"), 16)
	require.True(t, ok)
}
