package edi

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrBudget is what a *BudgetError is (errors.Is): the input's structure
// needs more memory than the budget allows.
var ErrBudget = errors.New("edi: the file's structure needs more memory than allowed")

// DefaultBudget is the memory a Document may take beyond its input of
// size bytes: twice the size plus 32 MiB. Real interchanges need far less
// (the 16 MiB benchmark ORDERS with 714,656 segments: 11 MiB). Only input
// that is mostly separators or empty envelopes needs more: a million
// "UNH+1+ORDERS:D:96A:UN'" without content take 23 MB of input but 270 MB
// of message records. With the input itself that keeps a parse within
// three times the input plus 64 MiB.
func DefaultBudget(size int) int64 { return 2*int64(size) + 32<<20 }

// BudgetError says that indexing an input would take more memory than its
// budget (Options.Budget) allows; Parse stops before taking it.
type BudgetError struct {
	Size   int   // input bytes
	Budget int64 // bytes the Document may take
	Need   int64 // bytes it would take, as far as indexing got
	// Segments, Messages and Interchanges are the counts that need it
	// (Segments from the terminator count, the others as far as the
	// envelope structure was read).
	Segments, Messages, Interchanges int
}

func (e *BudgetError) Error() string {
	per := float64(e.Size) / float64(max(e.Segments, 1))
	what := fmt.Sprintf("%d bytes hold %d segments (%.1f bytes each)", e.Size, e.Segments, per)
	if e.Messages > 0 {
		what += fmt.Sprintf(", %d messages", e.Messages)
	}
	if e.Interchanges > 0 {
		what += fmt.Sprintf(", %d interchanges", e.Interchanges)
	}
	return fmt.Sprintf("%s: %s; indexing them needs %s or more, over the %s allowed; this is not a usable interchange",
		ErrBudget.Error(), what, mib(e.Need), mib(e.Budget))
}

// Is makes errors.Is(err, ErrBudget) true.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// Record sizes the budget counts.
var (
	sizeSeg         = int64(unsafe.Sizeof(segRec{}))
	sizeInterchange = int64(unsafe.Sizeof(Interchange{})) + 16 // + the builder's first message/group indexes
	sizeGroup       = int64(unsafe.Sizeof(Group{}))
	sizeMessage     = int64(unsafe.Sizeof(Message{}))
	sizeDialect     = int64(unsafe.Sizeof(dialect{}))
)

// envelopeCount counts envelope segments (well-formed tags only).
type envelopeCount struct{ unb, ung, unh int }

func (c *envelopeCount) add(o envelopeCount) {
	c.unb, c.ung, c.unh = c.unb+o.unb, c.ung+o.ung, c.unh+o.unh
}

// reserveStructure checks that the interchanges, groups and messages the
// scanner counted fit the budget, and allocates their slices: every UNB
// starts an interchange (and a bare run before it may be one more), every
// UNG a group, every UNH a message.
func (d *Document) reserveStructure() error {
	c := d.envelopes
	need := d.cost(0) + int64(c.unb+1)*sizeInterchange + int64(c.ung)*sizeGroup + int64(c.unh)*sizeMessage
	if err := d.overBudget(need, len(d.segs)); err != nil {
		err.(*BudgetError).Messages, err.(*BudgetError).Interchanges = c.unh, c.unb
		return err
	}
	d.Interchanges = make([]Interchange, 0, c.unb+1)
	d.Groups = make([]Group, 0, c.ung)
	d.Messages = make([]Message, 0, c.unh)
	return nil
}

// sizeShapeCand is what one shape candidate costs (Document.shapeCands).
const sizeShapeCand = 4

// cost is the memory the Document holds beyond the input: its records
// (by capacity) plus strs bytes of header strings.
func (d *Document) cost(strs int64) int64 {
	return int64(cap(d.segs))*sizeSeg + int64(cap(d.shapeCands))*sizeShapeCand + int64(cap(d.dialects))*sizeDialect +
		int64(cap(d.Interchanges))*sizeInterchange + int64(cap(d.Groups))*sizeGroup + int64(cap(d.Messages))*sizeMessage + strs
}

// overBudget returns a *BudgetError when need exceeds the budget (0: no
// budget), else nil.
func (d *Document) overBudget(need int64, segments int) error {
	if d.budget <= 0 || need <= d.budget {
		return nil
	}
	return &BudgetError{Size: len(d.data), Budget: d.budget, Need: need, Segments: segments,
		Messages: len(d.Messages), Interchanges: len(d.Interchanges)}
}

// reserveIndex checks, before the record slice is allocated, that n
// records and at most as many shape candidates fit the budget.
func (d *Document) reserveIndex(n int) error {
	return d.overBudget(d.cost(0)+int64(n)*(sizeSeg+sizeShapeCand), n)
}
