package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "root"))
	require.NoError(t, err)
	s.SetClock(func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC) })
	return s
}

// store stages and commits data for id.
func store(t *testing.T, s *Store, conn, id string, data []byte) (*Stored, error) {
	t.Helper()
	w, err := s.Begin(conn, id)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	defer w.Abort()
	return w.Commit(Meta{DeliveryAttemptID: id, InterchangeID: "IC1", MessageType: "ORDRSP", Size: int64(len(data)), SHA256: strings.ToUpper(sum(data))})
}

// files lists every regular file under dir, relative.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	}))
	return out
}

func TestSafeName(t *testing.T) {
	for _, id := range []string{"da-0001", "A.b_c-9", strings.Repeat("x", 128), "e3b0c442"} {
		require.Equal(t, id, SafeName(id), id)
	}
	seen := map[string]string{}
	for _, id := range []string{
		"", ".", "..", "../x", "../../etc/passwd", "a/b", `a\b`, "/abs", strings.Repeat("x", 129),
		"\x1b[31mred", "ü", "a b", ".tmp-payload-00", ".hidden", "-rf", "a\x00b", "~abc", "x\u202Ey",
	} {
		n := SafeName(id)
		require.True(t, strings.HasPrefix(n, "~"), "%q -> %q", id, n)
		require.Len(t, n, 41)
		require.Equal(t, n, filepath.Base(n))
		require.False(t, isTempName(n))
		if prev, dup := seen[n]; dup {
			t.Fatalf("%q and %q map to %q", prev, id, n)
		}
		seen[n] = id
		require.Equal(t, n, SafeName(id), "deterministic")
	}
}

func TestDefaultRoot(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvDataDir: "/d/x/", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/d/x"},
		{map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"}, "/x/b2bx"},
		{map[string]string{"XDG_DATA_HOME": "relative", "HOME": "/h"}, "/h/.local/share/b2bx"},
		{map[string]string{"HOME": "/h"}, "/h/.local/share/b2bx"},
	} {
		got, err := DefaultRoot(func(k string) string { return tc.env[k] })
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}

func TestCommitDurableLayoutAndPermissions(t *testing.T) {
	s := newStore(t)
	data := []byte("UNB+UNOC:3+1+2+250304:0506+1'UNZ+0+1'")
	st, err := store(t, s, "conn-1", "da-1", data)
	require.NoError(t, err)
	require.False(t, st.AlreadyStored)
	require.Equal(t, filepath.Join(s.Root(), "conn-1", "deliveries", "da-1.edi"), st.Path)
	got, err := os.ReadFile(st.Path)
	require.NoError(t, err)
	require.Equal(t, data, got)

	m := st.Meta
	require.Equal(t, "conn-1", m.ConnectionID)
	require.Equal(t, sum(data), m.SHA256, "hash stored lower-case")
	require.Equal(t, int64(len(data)), m.Size)
	require.Equal(t, "da-1.edi", m.File)
	require.False(t, m.Acknowledged())

	var side map[string]any
	b, err := os.ReadFile(filepath.Join(filepath.Dir(st.Path), "da-1.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &side))
	for _, k := range []string{"deliveryAttemptId", "interchangeId", "messageType", "size", "sha256", "receivedAt", "connectionId"} {
		require.Contains(t, side, k)
	}
	require.Equal(t, "2025-03-04T05:06:07Z", side["receivedAt"])
	require.NotContains(t, side, "receiptId")

	require.ElementsMatch(t, []string{"conn-1/.lock", "conn-1/deliveries/da-1.edi", "conn-1/deliveries/da-1.json"}, files(t, s.Root()))
	if runtime.GOOS != "windows" {
		require.NoError(t, filepath.WalkDir(s.Root(), func(p string, d fs.DirEntry, err error) error {
			info, _ := d.Info()
			if d.IsDir() {
				require.Equal(t, fs.FileMode(0o700), info.Mode().Perm(), p)
			} else {
				require.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), p)
			}
			return nil
		}))
	}
}

func TestHostileIDsStayInsideTheSpool(t *testing.T) {
	s := newStore(t)
	for _, id := range []string{"../../escape", "..", "a/../../b", "/etc/passwd", "\x1b]0;x\a"} {
		st, err := store(t, s, "../conn", id, []byte(id+"payload"))
		require.NoError(t, err, id)
		rel, err := filepath.Rel(s.Root(), st.Path)
		require.NoError(t, err)
		require.False(t, strings.HasPrefix(rel, ".."), "%q stored at %s", id, st.Path)
		require.Equal(t, id, st.Meta.DeliveryAttemptID)
		got, err := s.Lookup("../conn", id)
		require.NoError(t, err)
		require.Equal(t, st.Path, got.Path)
	}
	entries, err := os.ReadDir(filepath.Dir(s.Root()))
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written next to the root")
}

func TestStoreSameDeliveryTwiceIsNoOp(t *testing.T) {
	s := newStore(t)
	data := []byte("same bytes")
	first, err := store(t, s, "c", "da", data)
	require.NoError(t, err)
	again, err := store(t, s, "c", "da", data)
	require.NoError(t, err)
	require.True(t, again.AlreadyStored)
	require.Equal(t, first.Meta, again.Meta)
	require.Len(t, files(t, filepath.Join(s.Root(), "c", "deliveries")), 2, "no temp left behind")
}

func TestStoreDifferentHashForSameIDConflicts(t *testing.T) {
	s := newStore(t)
	_, err := store(t, s, "c", "da", []byte("original"))
	require.NoError(t, err)
	_, err = store(t, s, "c", "da", []byte("tampered"))
	require.ErrorIs(t, err, ErrConflict)
	require.Contains(t, err.Error(), "stored copy is kept")
	st, err := s.Lookup("c", "da")
	require.NoError(t, err)
	b, _ := os.ReadFile(st.Path)
	require.Equal(t, "original", string(b))
	require.Len(t, files(t, filepath.Join(s.Root(), "c", "deliveries")), 2)
}

func TestCrashBetweenRenamesRecovers(t *testing.T) {
	s := newStore(t)
	st, err := store(t, s, "c", "da", []byte("payload"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(filepath.Dir(st.Path), "da.json")))

	again, err := store(t, s, "c", "da", []byte("payload"))
	require.NoError(t, err)
	require.True(t, again.AlreadyStored)
	_, err = s.Lookup("c", "da")
	require.NoError(t, err, "sidecar rewritten")

	require.NoError(t, os.Remove(filepath.Join(filepath.Dir(st.Path), "da.json")))
	_, err = store(t, s, "c", "da", []byte("other"))
	require.ErrorIs(t, err, ErrConflict)
}

func TestCommitRejectsBadMetadata(t *testing.T) {
	s := newStore(t)
	for name, m := range map[string]Meta{
		"size":  {Size: 99, SHA256: sum([]byte("abc"))},
		"hash":  {Size: 3, SHA256: "nothex"},
		"other": {DeliveryAttemptID: "other", Size: 3, SHA256: sum([]byte("abc"))},
	} {
		w, err := s.Begin("c", "da")
		require.NoError(t, err)
		_, _ = w.Write([]byte("abc"))
		_, err = w.Commit(m)
		require.Error(t, err, name)
	}
	require.Empty(t, files(t, filepath.Join(s.Root(), "c", "deliveries")), "staged files removed")
}

func TestAbortAndWriteError(t *testing.T) {
	s := newStore(t)
	w, err := s.Begin("c", "da")
	require.NoError(t, err)
	_, _ = w.Write([]byte("partial"))
	require.NoError(t, w.Abort())
	require.NoError(t, w.Abort(), "idempotent")
	_, err = w.Commit(Meta{})
	require.Error(t, err)

	w, err = s.Begin("c", "db")
	require.NoError(t, err)
	ro, err := os.Open(w.f.Name()) // a read-only handle makes writes fail like a full disk
	require.NoError(t, err)
	_ = w.f.Close()
	w.f = ro
	_, err = w.Write([]byte("x"))
	require.Error(t, err)
	require.ErrorIs(t, w.Err(), err)
	_, err = w.Commit(Meta{Size: 0, SHA256: sum(nil)})
	require.ErrorIs(t, err, w.Err())
	require.Empty(t, files(t, filepath.Join(s.Root(), "c", "deliveries")))
}

func TestStaleTempFilesAreSwept(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	dir := filepath.Join(root, "c", "deliveries")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	stale := filepath.Join(dir, ".tmp-payload-old")
	fresh := filepath.Join(dir, ".tmp-payload-new")
	require.NoError(t, os.WriteFile(stale, []byte("x"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("x"), 0o600))
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))

	s, err := Open(root)
	require.NoError(t, err)
	list, err := s.List("c")
	require.NoError(t, err)
	require.Empty(t, list, "temps are never listed")
	_, err = os.Stat(stale)
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = os.Stat(fresh)
	require.NoError(t, err, "a temp another process may be writing is kept")
}

func TestMarkAcknowledgedAndList(t *testing.T) {
	s := newStore(t)
	_, err := store(t, s, "c", "da-1", []byte("one"))
	require.NoError(t, err)
	_, err = store(t, s, "c", "da-2", []byte("two"))
	require.NoError(t, err)
	at := time.Date(2025, 3, 4, 6, 0, 0, 0, time.FixedZone("x", 3600))
	st, err := s.MarkAcknowledged("c", "da-2", "rcpt-9", at)
	require.NoError(t, err)
	require.Equal(t, "rcpt-9", st.Meta.ReceiptID)
	require.True(t, st.Meta.Acknowledged())
	got, err := s.Lookup("c", "da-2")
	require.NoError(t, err)
	require.Equal(t, at.UTC(), *got.Meta.AcknowledgedAt)
	_, err = s.MarkAcknowledged("c", "da-3", "r", at)
	require.ErrorIs(t, err, ErrNotFound)

	list, err := s.List("c")
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "rcpt-9", list[1].Meta.ReceiptID)
	_, err = s.Lookup("c", "nope")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestUnwritableDeliveriesFailCleanly(t *testing.T) {
	s := newStore(t)
	// A file where the deliveries directory belongs fails for any user
	// (root ignores permission bits, so chmod alone proves nothing there).
	require.NoError(t, os.MkdirAll(filepath.Join(s.Root(), "c"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(s.Root(), "c", "deliveries"), nil, 0o600))
	_, err := s.Begin("c", "da")
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrConflict))

	if os.Geteuid() == 0 {
		return
	}
	_, err = s.List("d") // creates the directory
	require.NoError(t, err)
	dir := filepath.Join(s.Root(), "d", "deliveries")
	require.NoError(t, os.Chmod(dir, 0o500))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	_, err = s.Begin("d", "da")
	require.Error(t, err)
}

func TestExport(t *testing.T) {
	s := newStore(t)
	st, err := store(t, s, "c", "../da", []byte("verified bytes"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "out")
	p, err := s.Export(st, out)
	require.NoError(t, err)
	require.Equal(t, out, filepath.Dir(p), "hostile id stays inside the out dir")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "verified bytes", string(b))
	info, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o600), info.Mode().Perm())

	p2, err := s.Export(st, out)
	require.NoError(t, err, "same bytes again: no-op")
	require.Equal(t, p, p2)

	require.NoError(t, os.WriteFile(p, []byte("edited"), 0o600))
	_, err = s.Export(st, out)
	require.ErrorContains(t, err, "already exists with other content")
	b, _ = os.ReadFile(p)
	require.Equal(t, "edited", string(b), "never overwritten")

	require.NoError(t, os.WriteFile(st.Path, []byte("rotten bytes!!"), 0o600))
	_, err = s.Export(st, filepath.Join(t.TempDir(), "out2"))
	require.ErrorContains(t, err, "no longer matches")
	ents, _ := os.ReadDir(filepath.Join(filepath.Dir(out), "out2"))
	require.Empty(t, ents, "no temp left behind")
}
