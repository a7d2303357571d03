package edi

import "github.com/nutrab2b/b2bx/edi/dict"

// ContrlSummary summarises a CONTRL: which interchange it answers, what
// the recipient did with it (UCI action) and every reported error down to
// the data element. Codes are named from the service directory of the
// CONTRL version (0083 action, 0085 syntax error).
type ContrlSummary struct {
	InterchangeRef string  `json:"interchangeRef"` // UCI 0020: the control reference of the answered interchange
	Sender         PartyID `json:"sender"`         // UCI S002: the sender of the answered interchange
	Recipient      PartyID `json:"recipient"`      // UCI S003
	Action         Coded   `json:"action"`         // UCI 0083, e.g. 7
	// Verdict is the action in one word: "rejected" (4, 6),
	// "acknowledged" (1, 7), "received" (8), "accepted" (5),
	// "acknowledged with errors" (2), "partly rejected" (3); "" for other
	// codes.
	Verdict     string        `json:"verdict"`
	ContrlError               // UCI 0085, 0013/0135, S011: an error in UNA/UNB/UNZ
	Groups      []ContrlGroup `json:"groups,omitempty"` // UCF (the first maxListed)
	// Messages lists the UCM of the interchange's messages outside groups
	// (the first maxListed); the messages of a group are in its entry.
	Messages []ContrlMessage `json:"messages,omitempty"`
	Segment  int             `json:"segment"` // the UCI; -1 when missing
}

// ContrlError is where a CONTRL level (UCI, UCF, UCM) puts an error: the
// syntax error code, the service segment and the data element.
type ContrlError struct {
	SyntaxError    *Coded           `json:"syntaxError,omitempty"`    // 0085
	ServiceSegment string           `json:"serviceSegment,omitempty"` // 0013 (syntax 3) or 0135 (syntax 4), e.g. UNB
	Element        *ElementPosition `json:"element,omitempty"`        // S011
}

// ElementPosition locates an erroneous data element (S011): 1-based
// element and component positions in the segment, as CONTRL counts them.
type ElementPosition struct {
	Element    int `json:"element"`              // 0098
	Component  int `json:"component,omitempty"`  // 0104
	Occurrence int `json:"occurrence,omitempty"` // 0136 (syntax 4)
}

// ContrlGroup is a UCF functional group response with its messages.
type ContrlGroup struct {
	Ref     string `json:"ref"` // 0048
	Action  Coded  `json:"action"`
	Verdict string `json:"verdict"`
	ContrlError
	Messages []ContrlMessage `json:"messages,omitempty"`
	Segment  int             `json:"segment"`
}

// ContrlMessage is a UCM message response with its segment errors.
type ContrlMessage struct {
	Ref     string `json:"ref"`     // 0062: the UNH reference of the answered message
	Type    string `json:"type"`    // S009/0065
	Version string `json:"version"` // S009/0052
	Release string `json:"release"` // S009/0054
	Agency  string `json:"agency"`  // S009/0051
	Action  Coded  `json:"action"`
	Verdict string `json:"verdict"`
	ContrlError
	Segments []ContrlSegmentError `json:"segments,omitempty"` // UCS
	Segment  int                  `json:"segment"`
}

// ContrlSegmentError is a UCS: an error in one segment of the answered
// message, with the UCD element errors under it.
type ContrlSegmentError struct {
	// Position is the segment's position in the answered message (0096),
	// counted from UNH = 1, as edi's Segment.Number counts.
	Position int `json:"position"`
	// PositionInvalid is 0096 as written when it is missing or not a
	// segment number (Position is then 0, which names no segment): the
	// summary must not say "segment 0". It is data: sanitise it.
	PositionInvalid string               `json:"positionInvalid,omitempty"`
	SyntaxError     *Coded               `json:"syntaxError,omitempty"`
	Elements        []ContrlElementError `json:"elements,omitempty"` // UCD
	Segment         int                  `json:"segment"`
}

// ContrlElementError is a UCD: an error in one data element.
type ContrlElementError struct {
	SyntaxError *Coded          `json:"syntaxError,omitempty"` // 0085
	Element     ElementPosition `json:"element"`               // S011
	Segment     int             `json:"segment"`
}

// verdicts names 0083 action codes in one word.
var verdicts = map[string]string{
	"1": "acknowledged", "2": "acknowledged with errors", "3": "partly rejected", "4": "rejected",
	"5": "accepted", "6": "rejected", "7": "acknowledged", "8": "received",
}

// contrlReader walks a CONTRL once; UCM after a UCF belong to that group
// (the structure puts all UCF groups after the ungrouped UCMs).
type contrlReader struct {
	d    *Document
	r    dict.Resolver
	sum  *ContrlSummary
	grp  *ContrlGroup
	msg  *ContrlMessage
	seg  *ContrlSegmentError
	list *listBudget
	// skipGroup: the current UCF is not listed, nor are its UCMs.
	skipGroup bool
}

func (d *Document) contrlSummary(m *Message) *ContrlSummary {
	c := &contrlReader{d: d, r: m.resolver, sum: &ContrlSummary{Segment: -1}, list: newListBudget()}
	for i := m.First + 1; i <= m.Last; i++ {
		if d.segs[i].flags&fBadTag == 0 {
			c.add(i)
		}
	}
	return c.sum
}

func (c *contrlReader) add(i int) {
	s := c.d.Segment(i)
	switch c.d.segs[i].tag {
	case tagUCI:
		if c.sum.Segment >= 0 {
			return
		}
		sum := c.sum
		sum.Segment, sum.InterchangeRef = i, s.Text(1, 1)
		sum.Sender = c.partyID(s, 2)
		sum.Recipient = c.partyID(s, 3)
		sum.Action, sum.Verdict = c.action(s, 4)
		sum.ContrlError = c.levelError(s, 5)
	case tagUCF:
		c.grp, c.msg, c.seg = nil, nil, nil
		c.skipGroup = !c.list.take(len(c.sum.Groups))
		if c.skipGroup {
			return
		}
		c.sum.Groups = append(c.sum.Groups, ContrlGroup{Ref: s.Text(1, 1), ContrlError: c.levelError(s, 5), Segment: i})
		c.grp = &c.sum.Groups[len(c.sum.Groups)-1]
		c.grp.Action, c.grp.Verdict = c.action(s, 4)
	case tagUCM:
		c.seg = nil
		list := &c.sum.Messages
		if c.grp != nil {
			list = &c.grp.Messages
		}
		if c.skipGroup || !c.list.take(len(*list)) {
			c.msg = nil
			return
		}
		cm := ContrlMessage{Ref: s.Text(1, 1), Type: s.Text(2, 1), Version: s.Text(2, 2), Release: s.Text(2, 3),
			Agency: s.Text(2, 4), ContrlError: c.levelError(s, 4), Segment: i}
		cm.Action, cm.Verdict = c.action(s, 3)
		*list = append(*list, cm)
		c.msg = &(*list)[len(*list)-1]
	case tagUCS:
		if c.msg == nil || !c.list.take(len(c.msg.Segments)) {
			c.seg = nil
			return
		}
		raw := s.Value(1, 1)
		pos, ok := atoi(raw)
		se := ContrlSegmentError{Position: pos, SyntaxError: c.syntaxError(s, 2), Segment: i}
		if !ok || pos == 0 {
			se.Position, se.PositionInvalid = 0, raw
			if raw == "" {
				se.PositionInvalid = "(missing)"
			}
		}
		c.msg.Segments = append(c.msg.Segments, se)
		c.seg = &c.msg.Segments[len(c.msg.Segments)-1]
	case tagUCD:
		if c.seg == nil || !c.list.take(len(c.seg.Elements)) {
			return
		}
		e := ContrlElementError{SyntaxError: c.syntaxError(s, 1), Segment: i}
		if p := elementPosition(s, 2); p != nil {
			e.Element = *p
		}
		c.seg.Elements = append(c.seg.Elements, e)
	}
}

func (c *contrlReader) partyID(s Segment, e int) PartyID {
	p := PartyID{ID: s.Text(e, 1), Qualifier: coded(c.r, s, e, 2, "0007")}
	return p
}

// action reads a 0083 action code and its verdict word.
func (c *contrlReader) action(s Segment, e int) (Coded, string) {
	a := coded(c.r, s, e, 1, "0083")
	return a, verdicts[a.Code]
}

// levelError reads 0085 at element e, the service segment tag after it and
// S011 after that (UCI, UCF: 5, 6, 7; UCM: 4, 5, 6).
func (c *contrlReader) levelError(s Segment, e int) ContrlError {
	return ContrlError{SyntaxError: c.syntaxError(s, e), ServiceSegment: s.Text(e+1, 1), Element: elementPosition(s, e+2)}
}

// syntaxError reads a 0085 code, nil when absent.
func (c *contrlReader) syntaxError(s Segment, e int) *Coded {
	v := coded(c.r, s, e, 1, "0085")
	if v.Code == "" {
		return nil
	}
	return &v
}

// elementPosition reads S011 at element e, nil when absent.
func elementPosition(s Segment, e int) *ElementPosition {
	el, ok := atoi(s.Value(e, 1))
	if !ok {
		return nil
	}
	p := &ElementPosition{Element: el}
	p.Component, _ = atoi(s.Value(e, 2))
	p.Occurrence, _ = atoi(s.Value(e, 3))
	return p
}
