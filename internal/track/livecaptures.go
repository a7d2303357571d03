package track

import (
	"context"
	"sync"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/session"
)

// CaptureNoter tells the machine's tracking index about captures a live
// receiver (`b2bx event listen`, the app's live events) committed, as it
// commits them, so their events join their orders' conversations without
// an `event inspect`. Add never blocks the receiver: paths are queued and
// noted in batches by one goroutine, off the commit path; a full queue
// drops paths for this run only (they stay on disk, and `event inspect`
// or the next capture of the directory notes them). Close notes what is
// queued, within CloseTimeout.
type CaptureNoter struct {
	env   session.Env
	warn  func(string)
	queue chan string
	done  chan struct{}
	once  sync.Once
}

// CaptureQueue bounds the paths waiting to be noted.
const CaptureQueue = 4096

// CloseTimeout bounds Close's last batch.
const CloseTimeout = 10 * time.Second

// NewCaptureNoter starts the noting goroutine. warn (may be nil) gets one
// line per failed batch.
func NewCaptureNoter(env session.Env, warn func(string)) *CaptureNoter {
	n := &CaptureNoter{env: env, warn: warn, queue: make(chan string, CaptureQueue), done: make(chan struct{})}
	go n.run()
	return n
}

// Add queues one committed capture's path.
func (n *CaptureNoter) Add(path string) {
	select {
	case n.queue <- path:
	default:
	}
}

// Close stops taking paths and notes the last batch.
func (n *CaptureNoter) Close() {
	n.once.Do(func() { close(n.queue) })
	select {
	case <-n.done:
	case <-time.After(CloseTimeout):
	}
}

func (n *CaptureNoter) run() {
	defer close(n.done)
	for p := range n.queue {
		batch := []string{p}
	more:
		for len(batch) < 256 {
			select {
			case q, ok := <-n.queue:
				if !ok {
					break more
				}
				batch = append(batch, q)
			case <-time.After(200 * time.Millisecond):
				break more
			}
		}
		n.note(batch)
	}
}

func (n *CaptureNoter) note(paths []string) {
	inflight.Add(1)
	defer inflight.Done()
	ctx, cancel := context.WithTimeout(context.Background(), AfterTimeout)
	defer cancel()
	m, err := LoadMachine(n.env)
	if err == nil {
		var x *Index
		if x, err = m.Open(ctx, nil); err == nil {
			err = x.NoteCaptures(ctx, paths)
			x.Close()
		}
	}
	if err != nil && n.warn != nil {
		n.warn("the tracking index did not note " + safe(paths[0]) + " and the captures after it: " + safe(err.Error()))
	}
}
