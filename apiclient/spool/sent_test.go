package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeepSent(t *testing.T) {
	s := newStore(t)
	data := []byte("UNB+UNOC:3+A+B+250101:0000+R1'UNZ+0+R1'")
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])

	_, err := s.SentPath("c", sha)
	require.ErrorIs(t, err, ErrNotFound, "nothing kept yet")

	p, err := s.KeepSent("c", data)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(s.Root(), "c", "sent", sha+".edi"), p)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, data, got)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(filePerm), fi.Mode().Perm())

	found, err := s.SentPath("c", strings.ToUpper(sha))
	require.NoError(t, err, "upper-case hex finds the copy")
	require.Equal(t, p, found)

	again, err := s.KeepSent("c", data)
	require.NoError(t, err)
	require.Equal(t, p, again, "the same bytes are kept once")
	ents, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	require.Len(t, ents, 1, "no temp file left behind")

	_, err = s.SentPath("other", sha)
	require.ErrorIs(t, err, ErrNotFound, "copies are per connection")
}

func TestKeepSentRepairsATruncatedCopy(t *testing.T) {
	s := newStore(t)
	data := []byte("some bytes")
	p, err := s.KeepSent("c", data)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, data[:3], filePerm))
	_, err = s.KeepSent("c", data)
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, data, got)
}

func TestSentPathRefusesNames(t *testing.T) {
	s := newStore(t)
	for _, sha := range []string{"", "../../etc/passwd", strings.Repeat("g", 64), strings.Repeat("a", 63)} {
		_, err := s.SentPath("c", sha)
		require.Error(t, err, sha)
		require.NotErrorIs(t, err, ErrNotFound, sha)
	}
	_, err := s.KeepSent("", []byte("x"))
	require.Error(t, err)
}
