package edi

import (
	"sort"
	"sync"
)

// elementIssues runs the element checks on the segments from..to-1 and
// returns their issues. It reads segment records field by field and
// never their path, so it runs next to the message layer, which writes
// the paths; the directory of each message comes from its own lookup.
func (d *Document) elementIssues(from, to int) *issueLog {
	return newElemChecker(d).checkRange(from, to)
}

// checkRange is elementIssues with ec (its rule caches kept from the
// ranges it checked before): the issues of from..to-1 in a log of their
// own.
func (ec *elemChecker) checkRange(from, to int) *issueLog {
	d := ec.d
	ec.log = issueLog{}
	k := sort.Search(len(d.Messages), func(k int) bool { return d.Messages[k].Last >= from })
	i := from
	for ; k < len(d.Messages) && i < to; k++ {
		m := &d.Messages[k]
		for ; i < min(m.First, to); i++ {
			ec.checkEnvelope(i)
		}
		if i >= to {
			break
		}
		ec.checkMessage(m, i, min(m.Last+1, to))
		i = min(m.Last+1, to)
	}
	for ; i < to; i++ {
		ec.checkEnvelope(i)
	}
	log := ec.log
	ec.log = issueLog{}
	return &log
}

// elemChunks is how many parts the element checks of a large input are
// cut into (elemWork): enough for one goroutine to take over most of the
// other's share when that one's core is slow or taken.
const elemChunks = 32

// elemWork is the element checks of a document cut into chunks at fixed
// places, taken by two goroutines from either end: each chunk has a log
// of its own, and the logs are merged in chunk order, so the issues are
// the same whoever checked which chunk (issueLog.merge adds the issues of
// consecutive ranges as one log over both would).
type elemWork struct {
	bounds []int // chunk c is the segments bounds[c]..bounds[c+1]-1
	logs   []*issueLog
	mu     sync.Mutex
	lo, hi int // the next chunk from the front, from the back
}

func newElemWork(segs, chunks int) *elemWork {
	chunks = max(1, min(chunks, segs))
	b := make([]int, chunks+1)
	for c := range b {
		b[c] = segs * c / chunks
	}
	return &elemWork{bounds: b, logs: make([]*issueLog, chunks), hi: chunks - 1}
}

// run checks chunks, taken from the front (or the back) one at a time,
// until none is left.
func (w *elemWork) run(d *Document, fromBack bool) {
	var ec *elemChecker
	for {
		w.mu.Lock()
		c := -1
		if w.lo <= w.hi {
			if fromBack {
				c, w.hi = w.hi, w.hi-1
			} else {
				c, w.lo = w.lo, w.lo+1
			}
		}
		w.mu.Unlock()
		if c < 0 {
			return
		}
		if ec == nil {
			ec = newElemChecker(d)
		}
		w.logs[c] = ec.checkRange(w.bounds[c], w.bounds[c+1])
	}
}
