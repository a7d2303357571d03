package edi

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"unsafe"
)

// splitMin is the input size from which index scans the two halves of
// the input at once (on 2 cores a 16 MiB file indexes in about half the
// time). Below it a goroutine and the bookkeeping cost more than they save.
const splitMin = 1 << 20

// splitPrefix is how much index scans alone before it splits: enough for
// UNA and UNB, so that the state guessed for the second half is the
// interchange's settled dialect.
const splitPrefix = 4 << 10

// scanState is everything the scanner carries from one segment to the
// next besides its position and the records and issues it has written.
// scanTo's loop reads nothing else, so two scanners that stand at the same
// position with equal states scan the rest identically.
type scanState struct {
	d    dialect
	di   uint16
	inIC bool
	una  int
}

func (s *scanner) state() scanState { return scanState{s.d, s.di, s.inIC, s.una} }

// indexSplit is the scan of index in two halves on two goroutines, with a
// result identical to the single pass (run). It scans the first prefix
// bytes, then picks the first real-looking segment terminator from byte
// mid on (mid < 0: half-way through the rest) and lets a second scanner
// start after it with a guess: the state the first scanner has now. The
// first scanner then scans up to that split point. The guess is checked
// afterwards: if the first scanner arrives exactly at the split point (a
// segment starts there in the single pass), with the guessed state and
// no new dialect (so the second scanner's dialect numbers are the single
// pass's), the second scanner did exactly what the single pass would have
// done from there, and its records and issues are appended (issue segment
// numbers shifted by the first half's record count). Otherwise its work
// is dropped and the first scanner simply goes on to the end: the split
// may fall inside a segment (an escaped terminator, an UNA), in another
// interchange's dialect, or after the UNZ; the result is right either way.
func (s *scanner) indexSplit(prefix, mid int) error {
	s.skipBOM()
	s.sized = true // scanHalves allocates the records from both halves' counts
	if err := s.scanTo(min(s.pos+prefix, len(s.data))); err != nil {
		return err
	}
	split := s.splitPoint(mid)
	if split < 0 {
		s.sized = false // sized by the first segment scanned from here on
		return s.finishScan()
	}
	joined, err := s.scanHalves(split)
	if err != nil {
		return err
	}
	if joined {
		s.joined = true
		s.finish()
		return nil
	}
	return s.finishScan()
}

// scanHalves scans from pos to split while a forked scanner scans from
// split to the end on a second goroutine, and joins the two when the
// guess holds (see indexSplit). Otherwise s stands where its half ended,
// with room for all records, ready to go on in one pass.
func (s *scanner) scanHalves(split int) (joined bool, err error) {
	data := s.data
	guess, dialects := s.state(), len(s.doc.dialects)
	tail := s.fork(split)
	term := []byte{s.d.seps.Segment}
	counted := make(chan int, 1)
	region := make(chan []segRec, 1)
	done := goGuarded(data, func() error {
		counted <- bytes.Count(data[split:], term)
		r, ok := <-region
		if !ok {
			return nil // the first half failed
		}
		tail.doc.segs = r
		return tail.scanTo(len(data))
	})
	sent, waited := false, false
	defer func() { // also when the first half panics
		if !sent {
			close(region)
		}
		if !waited {
			<-done
		}
	}()

	// One terminator per record in each half is the usual case, so the
	// halves' records go into one slice with no copy when they join.
	before, c1 := len(s.doc.segs), bytes.Count(data[s.pos:split], term)
	var c2 int
	select {
	case c2 = <-counted:
	case <-done: // the second half faulted (the file shrank): one pass meets it too
		waited, s.sized = true, false
		return false, nil
	}
	if err := s.doc.reserveIndex(before + c1 + c2 + 1); err != nil {
		return false, err
	}
	all := append(newRecords(before+c1+c2+1), s.doc.segs...)
	s.doc.segs = all[: before : before+c1]
	region <- all[before+c1 : before+c1 : cap(all)]
	sent = true

	err = s.scanTo(split)
	tailErr := <-done
	waited = true
	switch {
	case err != nil:
		return false, err
	case s.pos == split && s.state() == guess && len(s.doc.dialects) == dialects:
		if tailErr != nil {
			return false, tailErr
		}
		s.join(tail, all, before+c1)
		return true, nil
	case errors.Is(tailErr, ErrFileChanged):
		return false, tailErr
	}
	// Wrong guess: the second half's records are dropped.
	if sameArray(s.doc.segs, all) {
		s.doc.segs = all[:len(s.doc.segs):cap(all)]
	}
	return false, nil
}

// finishScan scans the rest of the data in one pass and finishes.
func (s *scanner) finishScan() error {
	if err := s.scanTo(len(s.data)); err != nil {
		return err
	}
	s.finish()
	return nil
}

// splitPoint returns the position after the first segment terminator (and
// the line break after it) at or after mid (mid < 0: half-way from pos to the end) that is not escaped by
// an odd run of release characters, or -1 when the scanner has no state to
// hand over yet (no record, a UNA waiting for its UNB) or there is no such
// terminator before the last byte. The terminator is only a guess; see
// indexSplit for how it is checked.
func (s *scanner) splitPoint(mid int) int {
	if len(s.doc.segs) == 0 || s.una >= 0 || s.pos >= len(s.data) {
		return -1
	}
	if mid < 0 {
		mid = s.pos + (len(s.data)-s.pos)/2
	}
	for p := max(mid, s.pos); p < len(s.data); p++ {
		k := bytes.IndexByte(s.data[p:], s.d.seps.Segment)
		if k < 0 {
			return -1
		}
		p += k
		if !s.d.seps.HasRelease || !s.oddReleaseRun(s.pos, p) {
			p++ // and past the line break that follows (see scanTo)
			for p < len(s.data) && s.d.isLayout(s.data[p]) {
				p++
			}
			if p < len(s.data) {
				return p
			}
			return -1
		}
	}
	return -1
}

// fork returns a scanner for the data from position at, with a copy of
// s's state, dialect table and dialect numbers, writing its own records
// and issues into a Document of its own.
func (s *scanner) fork(at int) *scanner {
	d := &Document{data: s.data, dialects: slices.Clone(s.doc.dialects)}
	return &scanner{
		doc: d, data: s.data, pos: at, d: s.d, di: s.di, known: maps.Clone(s.known),
		inIC: s.inIC, una: -1, sized: true, find: s.find, ctx: s.ctx,
	}
}

// join appends the records and issues of the second half's scanner t to
// s's and takes over its state. Both halves wrote into all, the first half
// from 0, the second from at, unless one outgrew its part (a dialect
// change to another terminator) and append moved it. The first half has
// at most as many records as terminators, so its records end at or before
// at; with escaped terminators the second half's records move down.
func (s *scanner) join(t *scanner, all []segRec, at int) {
	first, rest := s.doc.segs, t.doc.segs
	base := len(first)
	all = all[:cap(all)]
	if sameArray(first, all) && sameArray(rest, all[at:]) {
		if base < at {
			copy(all[base:], rest)
		}
		s.doc.segs = all[:base+len(rest)]
	} else {
		s.doc.segs = append(append(newRecords(base+len(rest)), first...), rest...)
	}
	for _, k := range t.rel {
		t.doc.issues[k].Segment += base
	}
	for _, o := range t.doc.over { // the second half's segment numbers are all relative (see rel)
		if o.first.Segment >= 0 {
			o.first.Segment += base
		}
	}
	for _, i := range t.doc.shapeCands {
		s.doc.shapeCands = append(s.doc.shapeCands, i+uint32(base))
	}
	s.doc.merge(&t.doc.issueLog)
	s.doc.envelopes.add(t.doc.envelopes)
	s.doc.dialects = t.doc.dialects
	s.pos, s.known, s.sized = t.pos, t.known, true
	s.d, s.di, s.find, s.inIC, s.una = t.d, t.di, t.find, t.inIC, t.una
	if t.una >= 0 {
		s.una += base
	}
}

// sameArray reports whether a and b start at the same element.
func sameArray(a, b []segRec) bool {
	return cap(a) > 0 && cap(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}
