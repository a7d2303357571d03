package track

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestIdleCountWaits: Wait returns only once every Add is done.
func TestIdleCountWaits(t *testing.T) {
	var c idleCount
	c.Wait() // nothing runs: at once
	c.Add(1)
	c.Add(1)
	waited := make(chan struct{})
	go func() { c.Wait(); close(waited) }()
	c.Done()
	select {
	case <-waited:
		t.Fatal("Wait returned with work still running")
	case <-time.After(50 * time.Millisecond):
	}
	c.Done()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return once the work was done")
	}
	require.Panics(t, c.Done, "more Done than Add")
}

// TestIdleCountAddDuringWait: work may start from zero while a test
// waits (an app's command after its program quit). A sync.WaitGroup
// forbids that, and the race detector reports it (the CI runs -race).
func TestIdleCountAddDuringWait(t *testing.T) {
	var c idleCount
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				c.Wait()
			}
		}
	})
	for range 2000 {
		c.Add(1)
		c.Done()
	}
	close(stop)
	wg.Wait()
}
