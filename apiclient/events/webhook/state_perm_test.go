//go:build unix

package webhook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The state file indexes the captures (0600) and holds their keys and
// results: it is the owner's alone, as are its -wal and -shm files.
func TestStateFileIsPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, StateFile)
	st, err := OpenState(path, 0)
	require.NoError(t, err)
	_, err = st.Meta()
	require.NoError(t, err)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		fi, err := os.Stat(path + suffix)
		require.NoError(t, err, suffix)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "state.db%s", suffix)
	}
	require.NoError(t, st.Close())

	// an older b2bx's wider file is narrowed
	require.NoError(t, os.Chmod(path, 0o644))
	st, err = OpenState(path, 0)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// a link at the name is refused, its target untouched
	other := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	link := filepath.Join(t.TempDir(), StateFile)
	require.NoError(t, os.Symlink(other, link))
	_, err = OpenState(link, 0)
	require.ErrorIs(t, err, ErrStateFile)
	require.ErrorContains(t, err, "not a regular file")
	raw, err := os.ReadFile(other)
	require.NoError(t, err)
	require.Equal(t, "x", string(raw))
}
