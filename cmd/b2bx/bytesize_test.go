package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"7": 7, "512B": 512, "3K": 3 << 10, "3KB": 3 << 10, "3KiB": 3 << 10,
		"5M": 5 << 20, "5MiB": 5 << 20, "2G": 2 << 30, "2GB": 2 << 30, "2GiB": 2 << 30} {
		got, err := parseByteSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "x", "MiB", "0", "-1", "1.5MiB", "9223372036854775807K"} {
		_, err := parseByteSize(bad)
		require.ErrorIs(t, err, errByteSize, bad)
	}
	n, err := parseByteSize("9223372036854775807")
	require.NoError(t, err)
	require.Equal(t, int64(math.MaxInt64), n)
}
