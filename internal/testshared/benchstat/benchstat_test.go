package benchstat

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	v := []float64{5, 1, 4, 2, 3}
	require.Equal(t, 3.0, Median(v))
	require.Equal(t, []float64{5, 1, 4, 2, 3}, v, "not sorted in place")
	require.Equal(t, 3.0, Median([]float64{4, 1, 3, 2}))
	require.Equal(t, 7.0, Median([]float64{7}))
}
