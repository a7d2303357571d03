package webhook

import (
	"fmt"
	"sync"
	"time"
)

// admission bounds the bodies held at once: in all (slots), per peer
// address, and in bytes. A delivery that does not fit waits (bounded),
// first come first served as far as wake-ups go, then is refused.
type admission struct {
	mu       sync.Mutex
	slots    int
	maxSlots int
	peers    map[string]int
	maxPeer  int
	bytes    int64
	maxBytes int64
	wake     chan struct{}
}

// ticket is one admitted body: its peer and the bytes it holds.
type ticket struct {
	peer  string
	bytes int64
}

func newAdmission(slots, perPeer int, bytes int64) *admission {
	return &admission{maxSlots: slots, maxPeer: perPeer, maxBytes: bytes, peers: map[string]int{}, wake: make(chan struct{})}
}

// why says what a delivery waits for ("" when it fits).
func (a *admission) why(peer string, n int64) string {
	switch {
	case a.slots >= a.maxSlots:
		return fmt.Sprintf("%d deliveries are being read already", a.maxSlots)
	case a.peers[peer] >= a.maxPeer:
		return fmt.Sprintf("%d deliveries from this address are being read already (at most %d per address)", a.peers[peer], a.maxPeer)
	case a.bytes > 0 && a.bytes+n > a.maxBytes:
		return fmt.Sprintf("the bodies being read hold %d of the %d bytes this receiver keeps at once", a.bytes, a.maxBytes)
	}
	return ""
}

// enter admits a body of n bytes from peer, waiting at most wait (or
// until done); nil and the reason when it did not fit. One body always
// fits when nothing else is held, whatever its size (up to MaxBody).
func (a *admission) enter(peer string, n int64, wait time.Duration, done <-chan struct{}) (*ticket, string) {
	var timer *time.Timer
	for {
		a.mu.Lock()
		why := a.why(peer, n)
		if why == "" {
			a.slots++
			a.peers[peer]++
			a.bytes += n
			a.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return &ticket{peer: peer, bytes: n}, ""
		}
		w := a.wake
		a.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(wait)
		}
		select {
		case <-w:
		case <-timer.C:
			return nil, why
		case <-done:
			timer.Stop()
			return nil, why
		}
	}
}

// grow takes n more bytes for an admitted body (a chunked one growing).
func (a *admission) grow(t *ticket, n int64, wait time.Duration, done <-chan struct{}) bool {
	var timer *time.Timer
	for {
		a.mu.Lock()
		if a.bytes+n <= a.maxBytes || a.bytes == t.bytes {
			a.bytes += n
			t.bytes += n
			a.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return true
		}
		w := a.wake
		a.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(wait)
		}
		select {
		case <-w:
		case <-timer.C:
			return false
		case <-done:
			timer.Stop()
			return false
		}
	}
}

// leave gives back what t holds and wakes the waiting.
func (a *admission) leave(t *ticket) {
	a.mu.Lock()
	a.slots--
	if a.peers[t.peer]--; a.peers[t.peer] <= 0 {
		delete(a.peers, t.peer)
	}
	a.bytes -= t.bytes
	close(a.wake)
	a.wake = make(chan struct{})
	a.mu.Unlock()
}

func (a *admission) inFlight() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.slots
}
