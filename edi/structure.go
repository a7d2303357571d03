package edi

import (
	"fmt"
	"strconv"
	"time"

	"github.com/nutrab2b/b2bx/edi/dict"
)

// Party is an interchange or group sender/recipient.
type Party struct {
	ID        string `json:"id"`                  // 0004/0010 (UNB), 0040/0044 (UNG)
	Qualifier string `json:"qualifier,omitempty"` // 0007, e.g. "14" (GLN)
	Routing   string `json:"routing,omitempty"`   // 0008/0014 reverse routing / routing address
}

// Interchange is one UNB..UNZ envelope, or a run of segments outside any
// UNB ("bare": HasUNB false).
type Interchange struct {
	Index       int // position in Document.Interchanges
	First, Last int // segment index range, inclusive (UNA/UNB through UNZ)
	Offset      int // byte offset of the first segment

	HasUNA, HasUNB, HasUNZ bool

	Separators Separators
	Charset    Charset

	SyntaxID      string // S001/0001, e.g. "UNOC"
	SyntaxVersion int    // S001/0002; 0 when missing or not a digit (see SyntaxVersionText)
	Sender        Party
	Recipient     Party
	PreparedDate  string    // S004/0017 as written (YYMMDD or CCYYMMDD)
	PreparedTime  string    // S004/0019 as written (HHMM)
	PreparedAt    time.Time // zero unless date and time are valid
	ControlRef    string    // 0020
	AppRef        string    // 0026 application reference
	TestIndicator string    // 0035, "1" for test

	TrailerCount int    // UNZ 0036 as written; -1 when missing or not a number
	TrailerRef   string // UNZ 0020

	badVersion string // S001/0002 as written when it is not a version number

	// Groups and Messages are sub-slices of Document.Groups and
	// Document.Messages.
	Groups   []Group
	Messages []Message
}

// Group is one functional group UNG..UNE.
type Group struct {
	Index, Interchange int
	First, Last        int // segment range, inclusive
	Offset             int
	Closed             bool // ended by UNE

	ID           string // 0038 message group identification (message type)
	Sender       Party  // S006
	Recipient    Party  // S007
	PreparedDate string
	PreparedTime string
	Ref          string // 0048 group reference number
	Agency       string // 0051
	Version      string // S008/0052
	Release      string // S008/0054
	Association  string // S008/0057

	TrailerCount int    // UNE 0060; -1 when missing or not a number
	TrailerRef   string // UNE 0048

	firstMsg, numMsg int
	Messages         []Message // sub-slice of Document.Messages
}

// Message is one UNH..UNT message.
type Message struct {
	Index       int
	Interchange int
	Group       int // index in Document.Groups, -1 outside a group
	First, Last int // segment range, inclusive: UNH through UNT (or the last segment before the message was cut off)
	Offset      int
	Closed      bool // ended by UNT

	Ref         string // 0062 message reference number
	Type        string // S009/0065, e.g. "ORDERS"
	Version     string // S009/0052, e.g. "D"
	Release     string // S009/0054, e.g. "96A"
	Agency      string // S009/0051, e.g. "UN"
	Association string // S009/0057, e.g. "EAN008"

	TrailerCount int    // UNT 0074; -1 when missing or not a number
	TrailerRef   string // UNT 0062

	// Set by message-structure validation (see checkMessages):

	// Structure names the directory structure the message was checked
	// against, e.g. "ORDERS D.96A" or "CONTRL 2:2/D:3 (syntax 3)"; empty
	// when b2bx has none for the message (envelope checks only).
	Structure string
	// Directory is the directory of that structure: "D96A", "D24A",
	// "SYNTAX3" or "SYNTAX4" (CONTRL); empty without a structure.
	Directory string
	// StructureProblems is how many problems the structure check found
	// in the message, listed as issues or not (see maxStructureIssues
	// and maxIssuesPerCode).
	StructureProblems int
	// DirectoryNote must be shown next to anything derived from the
	// directory: "D.25A checked with the D.24A structure", a CONTRL
	// version that does not fit the syntax version, or why there is no
	// structure ("no directory structure for INVOIC D:01B; envelope
	// checks only"). It quotes message identifiers from the data.
	DirectoryNote string

	structure *dict.Message // nil without a structure
	resolver  dict.Resolver // names for Describe
	doc       *Document     // for Summary; set by Parse
}

// Summary is what a person wants to know first about an ORDERS, ORDRSP,
// APERAK or CONTRL message; nil for other types and for a Message that
// did not come from Parse. It is read from the message's segments on
// every call: the Document keeps no summaries, so a file with a million
// messages does not hold a million of them. Keep the result while you
// need it. Like every view of a Document it reads the input, which must
// still be there (see File).
func (m Message) Summary() *Summary {
	if m.doc == nil {
		return nil
	}
	return m.doc.summarize(&m)
}

// Segments is the number of segments in the message, UNH and UNT included.
func (m Message) Segments() int { return m.Last - m.First + 1 }

// builder walks the segment records once and assembles the structure,
// checking envelope nesting, counts and references as it closes things.
type builder struct {
	d        *Document
	ic       int  // current interchange, -1
	grp      int  // open group, -1
	msg      int  // open message, -1
	closedIC bool // the current interchange was closed by UNZ
	// outsideIssue/outsideLast aggregate runs of segments outside messages
	// into one issue.
	outsideIssue, outsideLast, outsideRun int
	bareWarn                              bool // MESSAGE_WITHOUT_INTERCHANGE reported for current ic

	icFirstMsg, icFirstGrp []int

	strs  int64             // bytes of header strings kept, for the budget
	names map[string]string // message type, version, release, agency: one string each
	err   error             // the budget is exceeded: stop
}

// buildStructure walks the records once and builds interchanges, groups
// and messages; it stops with a *BudgetError when they would take more
// memory than the Document's budget.
func (d *Document) buildStructure() error {
	if err := d.reserveStructure(); err != nil {
		return err
	}
	b := &builder{d: d, ic: -1, grp: -1, msg: -1, outsideLast: -2, outsideIssue: -1}
	segs := d.segs
	for i := 0; i < len(segs) && b.err == nil; i++ {
		// Inside a message only service segments (tag "UN?", UNA, bad
		// tags) change anything: skip the data segments in a tight loop.
		if b.msg >= 0 {
			for i < len(segs) && (segs[i].tag[0] != 'U' || segs[i].tag[1] != 'N') && segs[i].flags&(fBadTag|fUNA) == 0 {
				i++
			}
			if i == len(segs) {
				break
			}
		}
		b.step(i)
	}
	if b.err != nil {
		return b.err
	}
	b.closeInterchange(len(d.segs))
	b.endOutside()
	b.attachSlices()
	return nil
}

// kept counts header strings the Document keeps, and checks the budget.
func (b *builder) kept(strs ...string) {
	for _, s := range strs {
		b.strs += int64(len(s))
	}
	if b.err == nil {
		b.err = b.d.overBudget(b.d.cost(b.strs), len(b.d.segs))
	}
}

// intern returns one string per distinct message type, version, release
// and agency, so a million messages share them (up to 256 distinct ones).
func (b *builder) intern(s string) string {
	if v, ok := b.names[s]; ok {
		return v
	}
	if b.names == nil {
		b.names = map[string]string{}
	}
	if len(b.names) < 256 {
		b.names[s] = s
	}
	b.strs += int64(len(s))
	return s
}

// step handles segment i. Last indexes are set when a structure closes,
// so a data segment inside a message costs only the tag test.
func (b *builder) step(i int) {
	r := b.d.segs[i]
	if r.tag[0] != 'U' || r.tag[1] != 'N' || r.flags&(fBadTag|fUNA) != 0 {
		if r.flags&fUNA != 0 {
			b.closeInterchange(i)
			b.startInterchange(i)
			b.cur().HasUNA = true
			return
		}
		b.dataSegment(i, r)
		return
	}
	switch r.tag[2] {
	case 'B':
		ic := b.cur()
		if ic == nil || b.closedIC || ic.HasUNB || !ic.HasUNA || ic.First != i-1 {
			b.closeInterchange(i)
			b.startInterchange(i)
			ic = b.cur()
		}
		ic.HasUNB = true
		b.readUNB(i)
	case 'G':
		b.ensureInterchange(i)
		b.closeMessage(i, false)
		b.closeGroup(i, false)
		b.openGroup(i)
	case 'E':
		b.ensureInterchange(i)
		b.closeMessage(i, false)
		if b.grp >= 0 {
			b.closeGroup(i, true)
		} else {
			b.d.segIssuef(SeverityError, CodeUNEUnexpected, SyntaxOutsideMessage, i,
				"UNE without a preceding UNG: there is no functional group to close")
		}
	case 'H':
		b.ensureInterchange(i)
		b.closeMessage(i, false)
		b.openMessage(i)
	case 'T':
		b.ensureInterchange(i)
		if b.msg >= 0 {
			b.closeMessage(i, true)
		} else {
			b.d.segIssuef(SeverityError, CodeUNTUnexpected, SyntaxOutsideMessage, i,
				"UNT without a preceding UNH: there is no message to close")
		}
	case 'Z':
		b.ensureInterchange(i)
		b.closeMessage(i, false)
		b.closeGroup(i, false)
		if ic := b.cur(); ic.HasUNB {
			ic.Last = i
			b.checkUNZ(i)
			b.checkEmptyInterchange()
			ic.HasUNZ = true
			b.closedIC = true
		} else {
			b.d.segIssuef(SeverityError, CodeUNZUnexpected, SyntaxOutsideMessage, i,
				"UNZ without a preceding UNB: there is no interchange to close")
		}
	default:
		b.dataSegment(i, r)
	}
}

// dataSegment handles a segment that is not an envelope segment.
func (b *builder) dataSegment(i int, r segRec) {
	if b.msg >= 0 {
		return
	}
	afterUNZ := b.closedIC
	b.ensureInterchange(i)
	if r.flags&fBadTag == 0 && !afterUNZ {
		b.outside(i)
	}
}

func (b *builder) cur() *Interchange {
	if b.ic < 0 {
		return nil
	}
	return &b.d.Interchanges[b.ic]
}

func (b *builder) startInterchange(i int) {
	r := b.d.segs[i]
	dia := b.d.dialects[r.dia]
	b.d.Interchanges = append(b.d.Interchanges, Interchange{
		Index: len(b.d.Interchanges), First: i, Last: i, Offset: int(r.off),
		Separators: dia.seps, Charset: dia.charset, TrailerCount: -1,
	})
	b.ic = len(b.d.Interchanges) - 1
	b.icFirstMsg = append(b.icFirstMsg, len(b.d.Messages))
	b.icFirstGrp = append(b.icFirstGrp, len(b.d.Groups))
	b.closedIC = false
	b.bareWarn = false
	b.kept()
}

// ensureInterchange starts a bare interchange when segment i is outside
// any: at the start of the data or after a UNZ.
func (b *builder) ensureInterchange(i int) {
	if b.ic >= 0 && !b.closedIC {
		return
	}
	if b.closedIC {
		b.d.segIssuef(SeverityError, CodeDataAfterUNZ, SyntaxOutsideMessage, i,
			"segment %s follows the UNZ that closed the interchange; only a new interchange (UNA/UNB) may follow UNZ",
			b.d.Segment(i).Tag())
	}
	b.startInterchange(i)
}

// closeInterchange ends the current interchange before segment i (or at
// the end of the data), reporting a missing UNZ.
func (b *builder) closeInterchange(i int) {
	ic := b.cur()
	if ic == nil || b.closedIC {
		return
	}
	ic.Last = i - 1
	b.closeMessage(i, false)
	b.closeGroup(i, false)
	if ic.HasUNB && !ic.HasUNZ {
		where := "the end of the data"
		if i < len(b.d.segs) {
			where = "the next interchange"
		}
		b.d.segIssuef(SeverityError, CodeUNZMissing, SyntaxMissing, ic.Last,
			"interchange %q (UNB at segment %d) has no UNZ trailer before %s; expected UNZ+%d+%s after segment %d",
			ic.ControlRef, ic.First+b.boolInt(ic.HasUNA), where, b.expectedUNZCount(), ic.ControlRef, ic.Last)
	}
	b.checkEmptyInterchange()
	b.closedIC = true
}

func (b *builder) boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// expectedUNZCount is what UNZ 0036 must say: the number of functional
// groups when the interchange uses them, else the number of messages. When
// groups and ungrouped messages are mixed (an error of its own) both kinds
// of top-level item are counted.
func (b *builder) expectedUNZCount() int {
	if n := len(b.d.Groups) - b.icFirstGrp[b.ic]; n > 0 {
		return n + b.directMessages()
	}
	return len(b.d.Messages) - b.icFirstMsg[b.ic]
}

func (b *builder) checkEmptyInterchange() {
	ic := b.cur()
	if !ic.HasUNB {
		return
	}
	if len(b.d.Groups) == b.icFirstGrp[b.ic] && len(b.d.Messages) == b.icFirstMsg[b.ic] {
		b.d.segIssuef(SeverityWarning, CodeEmptyInterchange, SyntaxLowerLevelEmpty, ic.First+b.boolInt(ic.HasUNA),
			"interchange %q contains no messages", ic.ControlRef)
	}
}

func (b *builder) openGroup(i int) {
	ic := b.cur()
	if direct := b.directMessages(); direct > 0 {
		b.d.segIssuef(SeverityError, CodeMixedGroups, SyntaxGroupsMessagesMixed, i,
			"functional group (UNG) after %d message(s) outside groups in the same interchange; use groups for all messages or for none", direct)
	}
	b.d.Groups = append(b.d.Groups, Group{
		Index: len(b.d.Groups), Interchange: ic.Index, First: i, Last: i,
		Offset: int(b.d.segs[i].off), TrailerCount: -1, firstMsg: len(b.d.Messages),
	})
	b.grp = len(b.d.Groups) - 1
	b.readUNG(i)
}

// directMessages counts messages of the current interchange outside groups.
func (b *builder) directMessages() int {
	n := 0
	for _, m := range b.d.Messages[b.icFirstMsg[b.ic]:] {
		if m.Group < 0 {
			n++
		}
	}
	return n
}

// closeGroup ends the open group at segment i: a UNE (withUNE) or
// something that implies the group ended without one.
func (b *builder) closeGroup(i int, withUNE bool) {
	if b.grp < 0 {
		return
	}
	g := &b.d.Groups[b.grp]
	g.numMsg = len(b.d.Messages) - g.firstMsg
	if withUNE {
		g.Last = i
		g.Closed = true
		b.checkUNE(i, g)
	} else {
		g.Last = i - 1
		b.d.segIssuef(SeverityError, CodeUNEMissing, SyntaxMissing, g.Last,
			"functional group %q (UNG at segment %d) has no UNE trailer; expected UNE+%d+%s after segment %d",
			g.Ref, g.First, g.numMsg, g.Ref, g.Last)
	}
	if g.numMsg == 0 {
		b.d.segIssuef(SeverityWarning, CodeEmptyGroup, SyntaxLowerLevelEmpty, g.First,
			"functional group %q contains no messages", g.Ref)
	}
	b.grp = -1
}

func (b *builder) openMessage(i int) {
	ic := b.cur()
	if b.grp < 0 && len(b.d.Groups) > b.icFirstGrp[b.ic] {
		b.d.segIssuef(SeverityError, CodeMixedGroups, SyntaxGroupsMessagesMixed, i,
			"message outside a functional group in an interchange that uses groups; put it inside UNG..UNE")
	}
	if !ic.HasUNB && !b.bareWarn {
		b.bareWarn = true
		b.d.segIssuef(SeverityWarning, CodeBareMessage, 0, i,
			"message without an interchange envelope (no UNB before it); sender, recipient and character set are unknown")
	}
	b.d.Messages = append(b.d.Messages, Message{
		Index: len(b.d.Messages), Interchange: ic.Index, Group: b.grp,
		First: i, Last: i, Offset: int(b.d.segs[i].off), TrailerCount: -1,
	})
	b.msg = len(b.d.Messages) - 1
	b.readUNH(i)
}

// closeMessage ends the open message: at its UNT (withUNT) or because
// segment i cannot belong to it.
func (b *builder) closeMessage(i int, withUNT bool) {
	if b.msg < 0 {
		return
	}
	m := &b.d.Messages[b.msg]
	if withUNT {
		m.Last = i
		m.Closed = true
		b.checkUNT(i, m)
	} else {
		m.Last = i - 1
		b.d.segIssuef(SeverityError, CodeUNTMissing, SyntaxMissing, m.Last,
			"message %q (%s, UNH at segment %d) has no UNT trailer; expected UNT+%d+%s after segment %d",
			m.Ref, m.Type, m.First, m.Segments()+1, m.Ref, m.Last)
	}
	b.msg = -1
}

// attachSlices sets the Groups/Messages sub-slices once the flat slices
// stop growing.
func (b *builder) attachSlices() {
	d := b.d
	for k := range d.Interchanges {
		end := len(d.Messages)
		gend := len(d.Groups)
		if k+1 < len(d.Interchanges) {
			end, gend = b.icFirstMsg[k+1], b.icFirstGrp[k+1]
		}
		d.Interchanges[k].Messages = d.Messages[b.icFirstMsg[k]:end:end]
		d.Interchanges[k].Groups = d.Groups[b.icFirstGrp[k]:gend:gend]
	}
	for k := range d.Groups {
		g := &d.Groups[k]
		g.Messages = d.Messages[g.firstMsg : g.firstMsg+g.numMsg : g.firstMsg+g.numMsg]
	}
}

// outside reports segment i outside any message; consecutive ones share
// one issue that counts them (its text is finished by endOutside).
func (b *builder) outside(i int) {
	if i == b.outsideLast+1 {
		b.outsideRun++
		b.outsideLast = i
		return
	}
	b.endOutside()
	b.outsideLast, b.outsideRun = i, 1
	if b.d.segIssuef(SeverityError, CodeOutsideMessage, SyntaxOutsideMessage, i,
		"segment %s is outside any message: only UNG/UNE/UNH/UNT/UNZ may appear between messages", b.d.Segment(i).Tag()) {
		b.outsideIssue = len(b.d.issues) - 1
	}
}

// endOutside finishes the issue of a run of segments outside messages
// with the run's length.
func (b *builder) endOutside() {
	if b.outsideIssue >= 0 && b.outsideRun > 1 {
		is := &b.d.issues[b.outsideIssue]
		is.Message = fmt.Sprintf("%d segments starting with %s are outside any message: only UNG/UNE/UNH/UNT/UNZ may appear between messages",
			b.outsideRun, b.d.Segment(is.Segment).Tag())
	}
	b.outsideIssue = -1
}

// SyntaxVersionText is the syntax version for people: "3", "missing" when
// UNB has none, or the value as written and "(not a version number)".
// It quotes data: sanitise it before display.
func (ic *Interchange) SyntaxVersionText() string {
	switch {
	case ic.SyntaxVersion > 0:
		return strconv.Itoa(ic.SyntaxVersion)
	case ic.badVersion != "":
		return strconv.Quote(ic.badVersion) + " (not a version number)"
	}
	return "missing"
}

// SyntaxLabel is the syntax identifier and version for people: "UNOC:3",
// or "UNOB (syntax version missing)" instead of a misleading "UNOB:0". It
// quotes data: sanitise it before display.
func (ic *Interchange) SyntaxLabel() string {
	id := ic.SyntaxID
	if id == "" {
		id = "(syntax identifier missing)"
	}
	if ic.SyntaxVersion > 0 {
		return id + ":" + strconv.Itoa(ic.SyntaxVersion)
	}
	return id + " (syntax version " + ic.SyntaxVersionText() + ")"
}
