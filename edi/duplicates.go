package edi

import (
	"cmp"
	"fmt"
	"slices"
)

// SyntaxDuplicate is the 0085 code for a reference used twice
// ("duplicate detected"), the same in syntax versions 3 and 4.
const SyntaxDuplicate = 26

// checkDuplicates reports references that must be unique but are not:
// two UNH with the same message reference in one interchange, two UNG
// with the same group reference in one interchange, and two UNB with the
// same control reference from the same sender to the same recipient in
// one input. Each repeat is an error at the repeated header that names
// the first occurrence. It sorts indexes instead of building maps, so a
// file with 10^5 messages costs 400 KB of int32s for a moment.
func (c *msgChecker) checkDuplicates() {
	d := c.d
	// Messages: by interchange, then reference, then position.
	idx := make([]int32, 0, len(d.Messages))
	for k := range d.Messages {
		if d.Messages[k].Ref != "" {
			idx = append(idx, int32(k))
		}
	}
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := &d.Messages[a], &d.Messages[b]
		return cmp.Or(cmp.Compare(x.Interchange, y.Interchange), cmp.Compare(x.Ref, y.Ref), cmp.Compare(a, b))
	})
	// A run of equal keys starts at its first occurrence (positions break
	// ties), so each repeat names d.Messages[idx[run]]: one pass, linear
	// however many repeats there are.
	for k, run := 1, 0; k < len(idx); k++ {
		m := &d.Messages[idx[k]]
		if first := &d.Messages[idx[run]]; first.Interchange != m.Interchange || first.Ref != m.Ref {
			run = k
			continue
		}
		c.duplicate(CodeMessageRefDuplicate, m.First, d.Segment(m.First).ElementOffset(1),
			"message reference %q (UNH 0062) is used again in this interchange: the message at segment %d has it already; every message of an interchange needs its own reference",
			m.Ref, d.Messages[idx[run]].First)
	}
	// Groups: by interchange, then reference.
	gidx := make([]int32, 0, len(d.Groups))
	for k := range d.Groups {
		if d.Groups[k].Ref != "" {
			gidx = append(gidx, int32(k))
		}
	}
	slices.SortFunc(gidx, func(a, b int32) int {
		x, y := &d.Groups[a], &d.Groups[b]
		return cmp.Or(cmp.Compare(x.Interchange, y.Interchange), cmp.Compare(x.Ref, y.Ref), cmp.Compare(a, b))
	})
	for k, run := 1, 0; k < len(gidx); k++ {
		g := &d.Groups[gidx[k]]
		if !sameGroupRef(&d.Groups[gidx[run]], g) {
			run = k
		}
		if first := &d.Groups[gidx[run]]; run != k {
			c.duplicate(CodeGroupRefDuplicate, g.First, d.Segment(g.First).ElementOffset(5),
				"group reference %q (UNG 0048) is used again in this interchange: the group at segment %d has it already; every functional group of an interchange needs its own reference",
				g.Ref, first.First)
		}
	}
	// Interchanges: by sender, recipient, control reference.
	iidx := make([]int32, 0, len(d.Interchanges))
	for k := range d.Interchanges {
		if ic := &d.Interchanges[k]; ic.HasUNB && ic.ControlRef != "" {
			iidx = append(iidx, int32(k))
		}
	}
	slices.SortFunc(iidx, func(a, b int32) int {
		x, y := &d.Interchanges[a], &d.Interchanges[b]
		return cmp.Or(cmp.Compare(x.Sender.ID, y.Sender.ID), cmp.Compare(x.Recipient.ID, y.Recipient.ID),
			cmp.Compare(x.ControlRef, y.ControlRef), cmp.Compare(a, b))
	})
	for k, run := 1, 0; k < len(iidx); k++ {
		ic := &d.Interchanges[iidx[k]]
		if !sameInterchangeRef(&d.Interchanges[iidx[run]], ic) {
			run = k
		}
		if first := &d.Interchanges[iidx[run]]; run != k {
			unb := ic.First + b2i(ic.HasUNA)
			c.duplicate(CodeInterchangeRefDuplicate, unb, d.Segment(unb).ElementOffset(5),
				"interchange control reference %q (UNB 0020) from %q to %q is used again: the interchange at segment %d has it already; a receiver rejects the repeat as a duplicate",
				ic.ControlRef, ic.Sender.ID, ic.Recipient.ID, first.First+b2i(first.HasUNA))
		}
	}
}

func sameGroupRef(a, b *Group) bool { return a.Interchange == b.Interchange && a.Ref == b.Ref }

func sameInterchangeRef(a, b *Interchange) bool {
	return a.Sender.ID == b.Sender.ID && a.Recipient.ID == b.Recipient.ID && a.ControlRef == b.ControlRef
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// duplicate adds one duplicate-reference error at segment seg.
func (c *msgChecker) duplicate(code Code, seg, off int, format string, args ...any) {
	is := Issue{Severity: SeverityError, Code: code, Segment: seg, Offset: off, SyntaxError: SyntaxDuplicate}
	if c.log.room(code) {
		is.Message = fmt.Sprintf(format+" (CONTRL 0085 code 26, duplicate detected)", args...)
	}
	c.log.add(is)
}
