package webhook

import (
	"path/filepath"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
)

// commitLoop decides and commits what is queued, a batch at a time.
func (h *Handler) commitLoop() {
	defer close(h.stopped)
	for {
		batch := h.nextBatch()
		if batch == nil {
			return
		}
		h.commitBatch(batch)
	}
}

// nextBatch waits for a delivery and takes those queued behind it, up to
// maxBatch and maxBatchBytes (nil once the handler stops).
func (h *Handler) nextBatch() []*job {
	var batch []*job
	select {
	case j := <-h.jobs:
		batch = append(batch, j)
	case <-h.stop:
		return nil
	}
	size := len(batch[0].a.Delivery.Body)
	for len(batch) < maxBatch && size < maxBatchBytes {
		select {
		case j := <-h.jobs:
			batch = append(batch, j)
			size += len(j.a.Delivery.Body)
		default:
			return batch
		}
	}
	return batch
}

// commitBatch decides and commits a batch, answers it, and then stores
// its state.
func (h *Handler) commitBatch(batch []*job) {
	in := make([]events.Arrival, len(batch))
	for i, j := range batch {
		in[i] = j.a
	}
	began := time.Now() // real time: the disk's
	answers := h.Receiver.DeliverAll(in, batchCommitter{s: h.Store, jobs: batch})
	if h.OnBatch != nil {
		took, n := time.Since(began), 0
		for _, a := range answers {
			if a.Committed {
				n++
			}
		}
		if n > 0 { // a batch all refused before its commit stored nothing
			h.OnBatch(n, took)
		}
	}
	for i, j := range batch {
		j.done <- answers[i]
	}
	// Answered first: the state write (it needs no fsync: the captures
	// are the durable copy) waits until every sender's answer is taken
	// and encoded, so that it does not hold up their goroutines; it
	// overlaps the senders' next requests. When deliveries are queued
	// already it does not wait: the committer, which they wait for, goes
	// on, and the answers run beside it.
	if len(h.jobs) == 0 {
		for _, j := range batch {
			<-j.taken
		}
	}
	_ = h.Receiver.Flush()
	if h.OnCommitted != nil {
		for _, a := range answers {
			if a.Committed {
				h.OnCommitted(Committed{Name: a.Delivery, Path: filepath.Join(h.Store.Dir(), a.Delivery), Answer: a})
			}
		}
	}
}

// batchCommitter commits a batch with a Store: the captures its
// deliveries' goroutines staged, and any they did not (written now, as
// Store.CommitAll does).
type batchCommitter struct {
	s    *Store
	jobs []*job
}

func (c batchCommitter) Names(n int) ([]string, error) { return c.s.NextNames(n) }

func (c batchCommitter) CommitAll(ds []events.Delivery, at []int, names []string) error {
	tmps := make([]string, len(ds))
	var err error
	for k, i := range at {
		if i >= len(c.jobs) || c.jobs[i].staged == nil {
			continue
		}
		j := c.jobs[i]
		<-j.staged
		tmps[k] = j.tmp
		if j.err != nil && err == nil {
			err = j.err
		}
	}
	if err != nil {
		removeAll(tmps)
		return err
	}
	if err := c.s.stageAll(ds, tmps); err != nil {
		return err
	}
	return c.s.commitStaged(ds, tmps, names)
}
