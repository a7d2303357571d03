//go:build unix

package spool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// within fails the test if f does not return in time: without the fix a
// FIFO or /dev/zero blocks or reads forever.
func within[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(20 * time.Second):
		t.Fatal("blocked on a special file")
		panic("unreachable")
	}
}

func TestExportRefusesSpecialTargets(t *testing.T) {
	s := newStore(t)
	st, err := store(t, s, "c", "da-1", []byte("verified bytes"))
	require.NoError(t, err)
	outside := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(outside, []byte("precious"), 0o600))
	for _, tc := range []struct {
		name  string
		plant func(dst string) error
		what  string
	}{
		{"fifo", func(dst string) error { return syscall.Mkfifo(dst, 0o600) }, "FIFO"},
		{"symlink to /dev/zero", func(dst string) error { return os.Symlink("/dev/zero", dst) }, "symbolic link"},
		{"symlink to a file elsewhere", func(dst string) error { return os.Symlink(outside, dst) }, "symbolic link"},
		{"directory", func(dst string) error { return os.Mkdir(dst, 0o700) }, "directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			dst := filepath.Join(out, "da-1.edi")
			require.NoError(t, tc.plant(dst))
			err := within(t, func() error { return s.CheckExport(out, "da-1") })
			require.ErrorIs(t, err, ErrNotRegular)
			require.ErrorContains(t, err, tc.what)
			require.ErrorContains(t, err, "choose another --out directory")
			err = within(t, func() error { _, err := s.Export(st, out); return err })
			require.ErrorIs(t, err, ErrNotRegular)
			b, _ := os.ReadFile(outside)
			require.Equal(t, "precious", string(b), "never written through the link")
			ents, _ := os.ReadDir(out)
			require.Len(t, ents, 1, "no temp left behind")
		})
	}
}

func TestCheckExport(t *testing.T) {
	s := newStore(t)
	out := filepath.Join(t.TempDir(), "new", "inbox")
	require.NoError(t, s.CheckExport(out, "da-1"), "a missing directory is created")
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Empty(t, ents, "the probe file is removed")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	require.ErrorContains(t, s.CheckExport(file, "da-1"), "choose another --out directory")

	require.NoError(t, os.WriteFile(filepath.Join(out, "da-1.edi"), []byte("x"), 0o600))
	require.NoError(t, s.CheckExport(out, "da-1"), "an existing regular file is compared by the export itself")
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	require.NoError(t, os.WriteFile(reg, []byte("x"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(reg, link))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", zero))

	for _, follow := range []bool{false, true} {
		f, err := OpenRegular(reg, follow)
		require.NoError(t, err)
		_ = f.Close()
		for _, p := range []string{fifo, zero, dir} {
			err := within(t, func() error { _, err := OpenRegular(p, follow); return err })
			require.ErrorIs(t, err, ErrNotRegular, p)
		}
	}
	_, err := OpenRegular(link, false)
	require.ErrorIs(t, err, ErrNotRegular, "a symlink is refused when not following")
	f, err := OpenRegular(link, true)
	require.NoError(t, err, "followed to a regular file")
	_ = f.Close()
	_, err = OpenRegular(filepath.Join(dir, "missing"), true)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestContextReaderStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := ContextReader(ctx, strings.NewReader("abcdef"))
	b := make([]byte, 2)
	n, err := r.Read(b)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	cancel()
	_, err = r.Read(b)
	require.ErrorIs(t, err, context.Canceled)
}
