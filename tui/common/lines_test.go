package common

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFill(t *testing.T) {
	require.Equal(t, []string{"a", "", ""}, Fill([]string{"a"}, 3))
	require.Equal(t, []string{"a", "b"}, Fill([]string{"a", "b", "c"}, 2))
	require.Equal(t, []string{"", ""}, Fill(nil, 2))
	require.Empty(t, Fill([]string{"a"}, 0))
}
