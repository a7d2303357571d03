package viewer

import (
	"strconv"
	"strings"

	"github.com/nutrab2b/b2bx/edi/pin"
	"github.com/nutrab2b/b2bx/internal/human"
)

// PinMark marks a segment in the list that a partner's CONTRL or APERAK
// names as wrong (a pin), or that breaks the contract's version rules or
// a partner rule (a finding); it wins over the validation mark, and
// reads without colour.
const PinMark = "◆"

// findingPins are the answer's pins of opts and b2bx's own findings on
// src's document: the contract's version rules for the connection's
// directory, then the partner's rules (read from the bytes, inside the
// Source's guard).
func findingPins(src *Source, opts Options) []pin.Pin {
	pins := append([]pin.Pin(nil), opts.Pins...)
	if err := src.read(func() {
		pins = append(pins, pin.ContractPins(src.doc, opts.Directory)...)
		pins = append(pins, pin.MIGPins(src.doc, opts.Rules)...)
	}); err != nil {
		return opts.Pins
	}
	return pins
}

// indexPins groups the pins by segment (once per viewer).
func (c *cache) indexPins(pins []pin.Pin) {
	c.pins = pins
	c.pinsBySeg = map[int][]int{}
	for k, p := range pins {
		if p.Segment >= 0 {
			c.pinsBySeg[p.Segment] = append(c.pinsBySeg[p.Segment], k)
		}
	}
}

// pinsOf are the pins on segment i.
func (c *cache) pinsOf(i int) []pin.Pin {
	ks := c.pinsBySeg[i]
	if len(ks) == 0 {
		return nil
	}
	out := make([]pin.Pin, len(ks))
	for n, k := range ks {
		out[n] = c.pins[k]
	}
	return out
}

// Pins are the answer's errors the viewer shows on the document.
func (m Model) Pins() []pin.Pin { return m.cache.pins }

// firstPinned is the lowest segment a pin names, -1 when none does.
func (m Model) firstPinned() int {
	first := -1
	for _, p := range m.cache.pins {
		if p.Segment >= 0 && p.Segment < m.doc().Len() && (first < 0 || p.Segment < first) {
			first = p.Segment
		}
	}
	return first
}

// nextPinned is the next pinned segment after the cursor (dir 1) or
// before it (dir -1), wrapping round; -1 when no pin names a segment.
func (m Model) nextPinned(dir int) int {
	n := m.doc().Len()
	best, bestD := -1, 0
	for seg := range m.cache.pinsBySeg {
		if seg < 0 || seg >= n {
			continue
		}
		d := ((seg-m.cursor)*dir + n) % n // 0 for the cursor's own: last
		if d == 0 {
			d = n
		}
		if best < 0 || d < bestD {
			best, bestD = seg, d
		}
	}
	return best
}

// pinText is one pin in words for the detail pane: who says it, where
// (element and component), the code and the text (terminal-safe).
func pinText(p pin.Pin) string {
	s := p.Source
	if p.Element > 0 {
		s += " element " + strconv.Itoa(p.Element)
		if p.Component > 0 {
			s += "." + strconv.Itoa(p.Component)
		}
	}
	if p.Code != "" {
		s += " [" + p.Code + "]"
	}
	return s + ": " + sanitize(p.Text)
}

// pinLine is the header's line about the pins: how many, and the
// answer's errors that name no segment of this document.
func (m Model) pinLine() string {
	pins := m.cache.pins
	st := m.c.Styles
	unplaced := 0
	for _, p := range pins {
		if p.Segment < 0 || p.Segment >= m.doc().Len() {
			unplaced++
		}
	}
	answer, contract, rules := 0, 0, 0
	for _, p := range pins {
		switch p.Source {
		case pin.SourceContract:
			contract++
		case pin.SourceMIG:
			rules++
		default:
			answer++
		}
	}
	var what []string
	if answer > 0 {
		what = append(what, human.Count(answer, "error", "errors")+" of the partner's answer")
	}
	if contract > 0 {
		what = append(what, human.Count(contract, "contract finding", "contract findings"))
	}
	if rules > 0 {
		what = append(what, human.Count(rules, "partner rule finding", "partner rule findings")+" (MIG)")
	}
	s := st.Error.Render(PinMark+" "+strings.Join(what, ", ")+" pinned") +
		st.Muted.Render(" · p/P next/previous pinned segment")
	if unplaced > 0 {
		s += st.Warn.Render(" · " + human.Count(unplaced, "error names", "errors name") + " no segment of this file (the header lists it)")
		for _, p := range pins {
			if p.Segment < 0 || p.Segment >= m.doc().Len() {
				s += st.Muted.Render(" · " + pinText(p))
				break
			}
		}
	}
	return s
}
