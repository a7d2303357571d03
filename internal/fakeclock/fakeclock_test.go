package fakeclock

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewStartsAtStart(t *testing.T) {
	require.Equal(t, Start, New(time.Time{}).Now())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	require.Equal(t, t0, New(t0).Now())
}

func TestAdvanceAndSet(t *testing.T) {
	c := New(time.Time{})
	c.Advance(90 * time.Second)
	require.Equal(t, Start.Add(90*time.Second), c.Now())
	c.Advance(-30 * time.Second)
	require.Equal(t, Start.Add(time.Minute), c.Now())
	t1 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Set(t1)
	require.Equal(t, t1, c.Now())
}

// TestAfterPassesAtOnceAndMovesTime: a retry wait neither blocks nor
// stands still; the waits are recorded in order.
func TestAfterPassesAtOnceAndMovesTime(t *testing.T) {
	c := New(time.Time{})
	select {
	case got := <-c.After(30 * time.Second):
		require.Equal(t, Start.Add(30*time.Second), got)
	default:
		t.Fatal("After did not fire at once")
	}
	<-c.After(2 * time.Minute)
	require.Equal(t, Start.Add(150*time.Second), c.Now())
	require.Equal(t, []time.Duration{30 * time.Second, 2 * time.Minute}, c.Waits())
	w := c.Waits()
	w[0] = 0
	require.Equal(t, 30*time.Second, c.Waits()[0], "Waits returns a copy")
}

// TestConcurrentUse fails under -race without the mutex.
func TestConcurrentUse(t *testing.T) {
	c := New(time.Time{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Advance(time.Second)
				<-c.After(time.Second)
				_ = c.Now()
				_ = c.Waits()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, Start.Add(1600*time.Second), c.Now())
	require.Len(t, c.Waits(), 800)
}
