package apiclient

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCorrelationIDFrom(t *testing.T) {
	_, ok := CorrelationIDFrom(context.Background())
	require.False(t, ok, "none set")
	id, ok := CorrelationIDFrom(WithCorrelationID(context.Background(), "op-7.a_b"))
	require.True(t, ok)
	require.Equal(t, "op-7.a_b", id)
	for _, bad := range []string{"", "has space", "new\nline", strings.Repeat("x", 65)} {
		_, ok := CorrelationIDFrom(WithCorrelationID(context.Background(), bad))
		require.False(t, ok, "%q is replaced by a fresh ID per call, so it is not reported", bad)
	}
}
