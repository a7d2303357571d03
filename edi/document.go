package edi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrTooLarge is returned by Parse for inputs of 4 GiB or more: segment
// offsets are stored in 32 bits to keep the index at 16 bytes per segment.
var ErrTooLarge = errors.New("edi: input is 4 GiB or larger; split it into smaller files")

// errTooManyDialects guards the 16-bit dialect index: a file would need
// more than 65535 different UNA advices to hit it.
var errTooManyDialects = errors.New("edi: more than 65535 different service string advices (UNA) in one file")

// segRec is the index entry of one segment: 16 bytes, no pointers, so a
// 16 MiB file with a million segments costs 16 MB of index and nothing for
// the garbage collector to scan.
type segRec struct {
	off   uint32  // byte offset of the first tag byte
	n     uint32  // length without the terminator
	tag   [3]byte // first three bytes (zero-padded); see fBadTag
	flags uint8   // f* bits
	dia   uint16  // index into Document.dialects
	path  uint16  // segment-group path id set by structure validation; 0 = none
}

// segRec flags.
const (
	fTerminated uint8 = 1 << iota // ends with the segment terminator (not at end of data)
	fRelease                      // contains the release character: unescape needed
	fLineBreak                    // contains CR/LF that are layout, not data (hard-wrapped)
	fBadTag                       // tag is not 3 upper-case letters/digits followed by a separator
	fUNA                          // the UNA service string advice
	fDangling                     // unterminated and ends with an unpaired release character
	fIndented                     // spaces or tabs after the line break before it (layout, see scanRange)
)

// Document is the index of one input: every segment's position and tag,
// the interchange/group/message structure with header facts, and the
// issues found. It references the input without copying it; the caller
// must not modify the input while the Document is in use.
type Document struct {
	data     []byte
	segs     []segRec
	dialects []dialect
	issueLog       // the issues; final once Parse returns
	budget   int64 // bytes the Document may take beyond data while Parse builds it; 0: no limit
	// envelopes counts the UNB, UNG and UNH segments the scanner saw, so
	// the structure's slices are sized (and checked against the budget)
	// before they are filled.
	envelopes envelopeCount
	// shapeCands lists, in order, the segments the segment-shape checks
	// must look at (see scanner.shapeCandidate); on a clean file few.
	shapeCands []uint32

	// Interchanges in input order. Messages and segments outside any UNB
	// belong to a "bare" interchange (HasUNB false), so every segment
	// belongs to exactly one interchange.
	Interchanges []Interchange
	// Groups are all functional groups (UNG..UNE) in input order.
	Groups []Group
	// Messages are all messages (UNH..UNT) in input order.
	Messages []Message
}

// Options tune ParseContext; the zero value is what Parse does.
type Options struct {
	// Budget bounds the memory, in bytes, the Document may take beyond its
	// input: the segment index (16 bytes per segment), the interchange,
	// group and message records (about 360, 340 and 260 bytes each) and
	// their header strings. An input whose structure needs more is refused
	// with a *BudgetError before that memory is taken. 0 means
	// DefaultBudget(len(data)); a negative budget is no limit.
	Budget int64
	// StructureOnly skips the character and element checks (about two
	// thirds of Parse's CPU on a large interchange): the Document has its
	// envelopes, messages, segment group paths and summaries, and its
	// Issues are those of the envelopes and message structures only. For
	// readers of the structure and the summaries (the tracking index, the
	// link input), never for what reports a file's issues.
	StructureOnly bool
}

// Parse indexes data, builds the envelope structure, validates the
// envelopes (counts, references, nesting, tags, characters) and the
// message structures against the directory (assigning segment group
// paths); Message.Summary reads the summaries of ORDERS, ORDRSP, APERAK
// and CONTRL messages from it.
// Problems in the data are reported as Issues, never as an error: the
// error is only ErrTooLarge (or the practically impossible dialect limit),
// or ErrFileChanged when data is a mapped File that was shortened while
// Parse read it, or a *BudgetError (see DefaultBudget).
func Parse(data []byte) (*Document, error) {
	return ParseContext(context.Background(), data, Options{})
}

// ParseContext is Parse with a memory budget (Options) that stops when
// ctx is done: between the stages, and every few megabytes while
// indexing. The error is then ctx's.
func ParseContext(ctx context.Context, data []byte, opt Options) (*Document, error) {
	budget := opt.Budget
	if budget == 0 {
		budget = DefaultBudget(len(data))
	}
	var d *Document
	err := Guard(data, func() error {
		var err error
		if d, err = indexContext(ctx, data, budget); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if opt.StructureOnly { // analyse without the character and element checks
			d.mergeEnvelope(&charIssues{ends: make([]int, len(d.Interchanges))})
			d.merge(d.checkMessages())
			return nil
		}
		return d.analyse()
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	d.budget = 0
	d.finish()
	for k := range d.Messages {
		d.Messages[k].doc = d
	}
	return d, nil
}

// parallelMin is the number of segments from which Parse runs the
// character check next to the message layer on a second goroutine; below
// it the goroutine costs more than it saves.
var parallelMin = 8192

// analyse runs the envelope checks (validate) and the message layer
// (structure, paths, summaries). The character check reads only the
// input bytes, so on large inputs it runs on a second goroutine while the
// message layer walks the segment records and writes their path ids. The
// segment-shape checks read those records, so they wait: on two cores,
// reading records the other core is writing costs more than it saves
// (measured: 14 ms in parallel against 11.5 ms in sequence on 16 MiB).
// The element checks are shared between both goroutines in chunks (see
// the body). The issue order is the same either way: per interchange the
// shape issues, then the character issues, then the message layer's.
//
// The error is ErrFileChanged when the character check's goroutine found
// the input shortened (see Guard).
func (d *Document) analyse() error {
	// The element checks take as long as the rest of the message layer:
	// they go in chunks at fixed places (elemWork), which the second
	// goroutine takes from the back once the character check is done and
	// this one from the front once the message layer is, so that a
	// goroutine whose core is slow or taken does less of them. The issues
	// are the same whoever checks which chunk.
	var chars *charIssues
	var more *issueLog
	if len(d.segs) < parallelMin {
		work := newElemWork(len(d.segs), 1)
		chars, more = d.characterIssues(), d.checkMessages()
		work.run(d, false)
		d.mergeAnalysed(chars, more, work)
		return nil
	}
	work := newElemWork(len(d.segs), elemChunks)
	done := goGuarded(d.data, func() error {
		chars = d.characterIssues()
		work.run(d, true)
		return nil
	})
	waited := false
	defer func() { // also when checkMessages panics
		if !waited {
			<-done
		}
	}()
	more = d.checkMessages()
	work.run(d, false)
	waited = true
	if err := <-done; err != nil {
		return err
	}
	d.mergeAnalysed(chars, more, work)
	return nil
}

// mergeAnalysed merges analyse's logs into d in the issue order: the
// character issues (per interchange, after its shape issues), the
// message layer's, then the element checks' in chunk order.
func (d *Document) mergeAnalysed(chars *charIssues, more *issueLog, work *elemWork) {
	d.mergeEnvelope(chars)
	d.merge(more)
	for _, l := range work.logs {
		d.merge(l)
	}
}

// charIssues are the character issues of every interchange in one log;
// ends[k] is where interchange k's end in log.issues.
type charIssues struct {
	log  issueLog
	ends []int
}

// characterIssues checks the characters of every interchange (see
// checkCharacters). It works on a copy of the Document header with its
// own issue log, so it shares no written memory with the goroutine
// running the message layer.
func (d *Document) characterIssues() *charIssues {
	out := &charIssues{ends: make([]int, len(d.Interchanges))}
	view := *d
	view.issueLog = issueLog{}
	for k := range d.Interchanges {
		view.checkCharacters(&d.Interchanges[k])
		out.ends[k] = len(view.issues)
	}
	out.log = view.issueLog
	return out
}

// mergeEnvelope runs the segment-shape checks and adds, per interchange,
// their issues and then the character issues, in the order validate gives.
func (d *Document) mergeEnvelope(chars *charIssues) {
	start := 0
	for k := range d.Interchanges {
		d.checkSegments(&d.Interchanges[k])
		for _, is := range chars.log.issues[start:chars.ends[k]] {
			d.add(is)
		}
		start = chars.ends[k]
	}
	d.mergeOver(&chars.log)
}

// checkSize refuses inputs whose offsets do not fit the 32-bit index.
func checkSize(n uint64) error {
	if n > math.MaxUint32 {
		return ErrTooLarge
	}
	return nil
}

// index scans data and builds the structure without the character and
// segment-shape checks; the benchmarks measure it separately. Large
// inputs are scanned in two halves at once (indexSplit).
func index(data []byte) (*Document, error) {
	return indexContext(context.Background(), data, DefaultBudget(len(data)))
}

// indexContext is index with a context and a budget (< 0: none).
func indexContext(ctx context.Context, data []byte, budget int64) (*Document, error) {
	scan := (*scanner).run
	if len(data) >= splitMin {
		scan = func(s *scanner) error { return s.indexSplit(splitPrefix, -1) }
	}
	return indexWithContext(ctx, data, budget, scan)
}

// indexWith is index with the scan given: tests compare the two scans.
func indexWith(data []byte, scan func(*scanner) error) (*Document, error) {
	return indexWithContext(context.Background(), data, DefaultBudget(len(data)), scan)
}

func indexWithContext(ctx context.Context, data []byte, budget int64, scan func(*scanner) error) (*Document, error) {
	if err := checkSize(uint64(len(data))); err != nil {
		return nil, err
	}
	d := &Document{data: data, budget: max(budget, 0)}
	s := newScanner(d)
	s.ctx = ctx
	if err := scan(s); err != nil {
		return nil, err
	}
	if err := d.overBudget(d.cost(0), len(d.segs)); err != nil {
		return nil, err
	}
	if err := d.buildStructure(); err != nil {
		return nil, err
	}
	return d, nil
}

// Data returns the input the Document indexes.
func (d *Document) Data() []byte { return d.data }

// Len is the number of segments.
func (d *Document) Len() int { return len(d.segs) }

// Leading returns the bytes before the first segment: a UTF-8 BOM, junk
// before the interchange, line breaks. For an input without segments it is
// the whole input.
func (d *Document) Leading() []byte {
	if len(d.segs) == 0 {
		return d.data
	}
	return d.data[:d.segs[0].off]
}

// GapAfter returns the bytes between the end of segment i (after its
// terminator) and the next segment or the end of the input: line breaks,
// junk before a following interchange, trailing padding. Leading, every
// segment's Raw with its terminator, and every GapAfter concatenated give
// back the input byte for byte.
func (d *Document) GapAfter(i int) []byte {
	r := d.segs[i]
	end := int(r.off) + int(r.n)
	if r.flags&fTerminated != 0 {
		end++
	}
	next := len(d.data)
	if i+1 < len(d.segs) {
		next = int(d.segs[i+1].off)
	}
	return d.data[end:next]
}

// MessageOf returns the index in Messages of the message containing
// segment i (UNH through UNT), or -1.
func (d *Document) MessageOf(i int) int {
	k := sort.Search(len(d.Messages), func(k int) bool { return d.Messages[k].First > i }) - 1
	if k >= 0 && i <= d.Messages[k].Last {
		return k
	}
	return -1
}

// InterchangeOf returns the index in Interchanges of the interchange
// containing segment i, or -1 for an index out of range.
func (d *Document) InterchangeOf(i int) int {
	k := sort.Search(len(d.Interchanges), func(k int) bool { return d.Interchanges[k].First > i }) - 1
	if k >= 0 && i <= d.Interchanges[k].Last {
		return k
	}
	return -1
}

// IndexBytes is the memory the segment index itself occupies (capacity of
// the record slice), for benchmarks and memory budgeting.
func (d *Document) IndexBytes() int { return cap(d.segs) * 16 }

func (d *Document) checkIndex(i int) {
	if i < 0 || i >= len(d.segs) {
		panic(fmt.Sprintf("edi: segment index %d out of range [0,%d)", i, len(d.segs)))
	}
}
