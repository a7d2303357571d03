package syncbuf

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConcurrentWrites fails under -race (and loses bytes) without the mutex.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_, _ = b.WriteString("y")
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	require.Len(t, b.String(), 1600)
	require.Equal(t, 800, strings.Count(b.String(), "x"))
	require.Equal(t, 800, strings.Count(b.String(), "y"))
}
