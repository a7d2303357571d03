package edi

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenFile: small files are read, large regular files are mapped (on
// Linux), and either way the bytes and the parsed Document are those of
// the read path.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, mapMin - 1, mapMin, 2*splitMin + 4321} {
		data := generateOrders(size, "\r\n")[:size]
		name := filepath.Join(dir, "f.edi")
		require.NoError(t, os.WriteFile(name, data, 0o600))
		f, err := OpenFile(name)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, f.Bytes()), "size %d", size)
		require.Equal(t, runtime.GOOS == "linux" && size >= mapMin, f.Mapped(), "size %d", size)

		read, err := ReadFile(name)
		require.NoError(t, err)
		want, err := Parse(read)
		require.NoError(t, err)
		got, err := Parse(f.Bytes())
		require.NoError(t, err)
		requireSameDoc(t, want, got, "mapped")

		require.NoError(t, f.Close())
		require.NoError(t, f.Close(), "a second Close does nothing")
		require.Nil(t, f.Bytes())
	}
	_, err := OpenFile(filepath.Join(dir, "missing.edi"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = OpenFile(dir)
	require.Error(t, err, "a directory is not a file to parse")
}

// mappedThenTruncated maps a generated interchange of size bytes and then
// shortens the file to keep bytes, as another program might while b2bx
// reads it: the mapping's pages past the new end fault (SIGBUS).
func mappedThenTruncated(t *testing.T, size, keep int) *File {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("files are only mapped on Linux")
	}
	name := filepath.Join(t.TempDir(), "shrinking.edi")
	require.NoError(t, os.WriteFile(name, generateOrders(size, "\n"), 0o600))
	f, err := OpenFile(name)
	require.NoError(t, err)
	require.True(t, f.Mapped())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	require.NoError(t, os.Truncate(name, int64(keep)))
	return f
}

// TestParseTruncatedFile: a file shortened while mapped gives
// ErrFileChanged from Parse, whether the lost part starts in the first
// half of the split scan or only in the second (whose goroutine meets it
// first). TestGuard covers a goroutine's fault directly.
func TestParseTruncatedFile(t *testing.T) {
	const size = 4 * splitMin
	for _, keep := range []int{0, 64 << 10, size / 4, size/2 + 8192, size - 4096} {
		f := mappedThenTruncated(t, size, keep)
		d, err := Parse(f.Bytes())
		require.ErrorIs(t, err, ErrFileChanged, "kept %d of %d bytes", keep, size)
		require.Nil(t, d)
	}
}

// TestGuard: a fault inside the guarded data is an error; other panics,
// and faults outside the data, stay panics.
func TestGuard(t *testing.T) {
	f := mappedThenTruncated(t, 2*mapMin, 4096)
	data := f.Bytes()
	read := func() error {
		_ = bytes.Count(data, []byte{'\''})
		return nil
	}
	require.ErrorIs(t, Guard(data, read), ErrFileChanged)
	require.ErrorIs(t, <-goGuarded(data, read), ErrFileChanged)
	require.NoError(t, Guard(data, func() error {
		require.Positive(t, bytes.Count(data[:4096], []byte{'\''}))
		return nil
	}), "the kept part reads fine")
	require.PanicsWithValue(t, "boom", func() { _ = Guard(data, func() error { panic("boom") }) })
	require.Panics(t, func() { _ = Guard(make([]byte, 10), read) }, "a fault outside the data is not hidden")
}
