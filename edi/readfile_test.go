package edi

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4095, hugeThreshold - 1, hugeThreshold + 12345} {
		data := bytes.Repeat([]byte("UNH+1+ORDERS:D:96A:UN'"), size/22+1)[:size]
		name := filepath.Join(dir, "f.edi")
		require.NoError(t, os.WriteFile(name, data, 0o600))
		got, err := ReadFile(name)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got), "size %d", size)
	}
	_, err := ReadFile(filepath.Join(dir, "missing.edi"))
	require.ErrorIs(t, err, fs.ErrNotExist)

	d := mustParse(t, generateOrders(hugeThreshold*2, "\n"))
	require.Empty(t, d.Issues())
	require.LessOrEqual(t, d.IndexBytes(), (d.Len()+1)*16, "the aligned index is still exactly sized")
}
