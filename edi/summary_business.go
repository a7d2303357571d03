package edi

import (
	"strings"

	"github.com/nutrab2b/b2bx/edi/dict"
)

// maxListed bounds each list of a summary (dates, references, parties,
// control totals, changed lines and their quantities, texts, application
// errors, CONTRL entries); counts stay exact. maxSummaryItems bounds all
// the lists of one summary together, so nested lists cannot multiply: a
// summary stays small whatever the message holds. Real messages list a
// few dozen items; the structure check reports the repetitions beyond
// what the directory allows.
const (
	maxListed       = 1000
	maxSummaryItems = 10000
)

// listBudget is what one summary may still list.
type listBudget struct{ left int }

func newListBudget() *listBudget { return &listBudget{left: maxSummaryItems} }

// take reports whether one more item may join a list of n items, and
// counts it.
func (b *listBudget) take(n int) bool {
	if n >= maxListed || b.left <= 0 {
		return false
	}
	b.left--
	return true
}

// OrdrspSummary summarises an ORDRSP message.
//
// A line is "changed" when its LIN action code (1229) is present and is
// not one that confirms the ordered line as it was: 4 "No action", 5
// "Accepted without amendment" and 11 "Not amended" are unchanged, and so
// is a LIN without action code. Every other code (1 Added, 2 Deleted, 3
// Changed, 6 Accepted with amendment, 7 Not accepted, 10 Not found ...)
// makes the line changed. Quantities are not compared with the order:
// b2bx has only the response.
type OrdrspSummary struct {
	Sender       PartyID         `json:"sender"`
	Recipient    PartyID         `json:"recipient"`
	Document     DocumentSummary `json:"document"`
	OrderNumber  string          `json:"orderNumber,omitempty"` // the first header RFF+ON
	Lines        int             `json:"lines"`                 // LIN segments
	Actions      []ActionCount   `json:"actions,omitempty"`     // lines per action code, in order of first use
	ChangedLines int             `json:"changedLines"`
	// Changed lists the first maxListed (1000) changed lines.
	Changed  []LineChange   `json:"changed,omitempty"`
	Controls []ControlTotal `json:"controls,omitempty"`
}

// ActionCount is how many lines carry one LIN action code; the empty code
// counts lines without one.
type ActionCount struct {
	Action  Coded `json:"action"`
	Lines   int   `json:"lines"`
	Changed bool  `json:"changed"`
}

// LineChange is a changed ORDRSP line with its quantities.
type LineChange struct {
	Line       string     `json:"line"`              // LIN 1082
	Item       string     `json:"item,omitempty"`    // LIN C212/7140
	ItemType   Coded      `json:"itemType,omitzero"` // C212/7143, e.g. EN, SRV
	Action     Coded      `json:"action"`            // LIN 1229
	Quantities []Quantity `json:"quantities,omitempty"`
	Segment    int        `json:"segment"`
}

// Quantity is a QTY (C186).
type Quantity struct {
	Qualifier Coded  `json:"qualifier"` // 6063, e.g. 21 "Ordered quantity"
	Value     string `json:"value"`
	Unit      string `json:"unit,omitempty"` // 6411
	Segment   int    `json:"segment"`
}

// AperakSummary summarises an APERAK message.
type AperakSummary struct {
	Sender    PartyID         `json:"sender"`
	Recipient PartyID         `json:"recipient"`
	Document  DocumentSummary `json:"document"`
	Texts     []string        `json:"texts,omitempty"` // message-level FTX
	// Errors lists the ERC groups (the first maxListed).
	Errors      []AppError `json:"errors"`
	ErrorsTotal int        `json:"errorsTotal"`
}

// AppError is an APERAK application error (ERC) with the texts and
// references of its group. UN/EDIFACT has no code list for 9321: the
// codes are agreed between partners (or set by EANCOM profiles), so Name
// is filled only when the directory has one; the FTX usually explains.
type AppError struct {
	Code       string      `json:"code"`               // C901/9321
	Name       string      `json:"name,omitempty"`     // from the directory, when it lists the code
	CodeList   string      `json:"codeList,omitempty"` // C901/1131
	Agency     Coded       `json:"agency,omitzero"`    // C901/3055
	Texts      []string    `json:"texts,omitempty"`
	References []Reference `json:"references,omitempty"`
	Segment    int         `json:"segment"`
}

// Packed keys of the tags the summaries switch on.
var (
	keyLIN = packKey(tagLIN)
	keyUNS = packKey(tagUNS)
	keyCNT = packKey(tagCNT)
	keyQTY = packKey(tagQTY)
	keyERC = packKey(tagERC)
	keyFTX = packKey(tagFTX)
	keyRFF = packKey(tagRFF)
)

func packKey(t [3]byte) uint32 { return uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2]) }

// headerReader collects the document header: the first BGM, the
// message-level DTMs, and the RFF and NAD that start top-level groups.
// Without a structure (or for segments that did not fit it) the order
// decides: DTMs before the first RFF/NAD, RFFs before the first NAD.
type headerReader struct {
	d    *Document
	m    *Message
	sum  *DocumentSummary
	bgm  bool
	list *listBudget
}

func (h *headerReader) add(i int) {
	d, r, sum := h.d, h.m.resolver, h.sum
	tag := d.segs[i].tag
	depth, trigger, known := d.level(h.m, i)
	topGroup := known && depth == 1 && trigger
	switch tag {
	case tagBGM:
		if h.bgm {
			return
		}
		h.bgm = true
		s := d.Segment(i)
		sum.Name = coded(r, s, 1, 1, "1001")
		sum.Number = s.Text(2, 1)
		sum.Function = coded(r, s, 3, 1, "1225")
		sum.ResponseType = coded(r, s, 4, 1, "4343")
	case tagDTM:
		if ((known && depth == 0) || (!known && len(sum.References)+len(sum.Parties) == 0)) && h.list.take(len(sum.Dates)) {
			sum.Dates = append(sum.Dates, dateTime(r, d.Segment(i)))
		}
	case tagRFF:
		if (topGroup || (!known && len(sum.Parties) == 0)) && h.list.take(len(sum.References)) {
			sum.References = append(sum.References, reference(r, d.Segment(i)))
		}
	case tagNAD:
		if (topGroup || !known) && h.list.take(len(sum.Parties)) {
			sum.Parties = append(sum.Parties, party(r, d.Segment(i)))
		}
	}
}

// finish points Date at the document date (qualifier 137).
func (h *headerReader) finish() {
	for k := range h.sum.Dates {
		if h.sum.Dates[k].Qualifier.Code == "137" {
			h.sum.Date = &h.sum.Dates[k]
			return
		}
	}
}

// partyIDs returns the interchange sender and recipient with qualifier
// names.
func (d *Document) partyIDs(m *Message) (PartyID, PartyID) {
	ic := &d.Interchanges[m.Interchange]
	id := func(p Party) PartyID {
		q := Coded{Code: p.Qualifier}
		if q.Code != "" {
			q.Name, _ = m.resolver.CodeName("0007", q.Code)
		}
		return PartyID{ID: p.ID, Qualifier: q}
	}
	return id(ic.Sender), id(ic.Recipient)
}

// ordersSummary reads the header until the first LIN (or UNS), counts the
// LINs and collects the CNTs: one pass over the tags, elements only of
// the few segments shown.
func (d *Document) ordersSummary(m *Message) *OrdersSummary {
	o := &OrdersSummary{}
	o.Sender, o.Recipient = d.partyIDs(m)
	list := newListBudget()
	h := headerReader{d: d, m: m, sum: &o.Document, list: list}
	header := true
	for i := m.First + 1; i <= m.Last; i++ {
		rec := &d.segs[i]
		if rec.flags&fBadTag != 0 {
			continue
		}
		switch packKey(rec.tag) {
		case keyLIN:
			o.Lines++
			header = false
		case keyUNS:
			header = false
		case keyCNT:
			if list.take(len(o.Controls)) {
				o.Controls = append(o.Controls, controlTotal(m.resolver, d.Segment(i)))
			}
		default:
			if header {
				h.add(i)
			}
		}
	}
	h.finish()
	checkLineCount(o.Controls, o.Lines)
	return o
}

// ordrspSummary is ordersSummary plus the action code of every line and
// the quantities of the changed lines it lists.
func (d *Document) ordrspSummary(m *Message) *OrdrspSummary {
	o := &OrdrspSummary{}
	o.Sender, o.Recipient = d.partyIDs(m)
	list := newListBudget()
	h := headerReader{d: d, m: m, sum: &o.Document, list: list}
	actions := actionCounter{o: o, r: m.resolver}
	r := m.resolver
	header := true
	var cur *LineChange // the listed changed line QTYs belong to
	for i := m.First + 1; i <= m.Last; i++ {
		rec := &d.segs[i]
		if rec.flags&fBadTag != 0 {
			continue
		}
		switch packKey(rec.tag) {
		case keyLIN:
			header, cur = false, nil
			o.Lines++
			changed := actions.count(d.quickBytes(i, 2, 1))
			if changed {
				o.ChangedLines++
				if list.take(len(o.Changed)) {
					s := d.Segment(i)
					o.Changed = append(o.Changed, LineChange{Line: s.Text(1, 1), Item: s.Text(3, 1),
						ItemType: coded(r, s, 3, 2, "7143"), Action: coded(r, s, 2, 1, "1229"), Segment: i})
					cur = &o.Changed[len(o.Changed)-1]
				}
			}
		case keyQTY:
			if cur != nil && list.take(len(cur.Quantities)) {
				s := d.Segment(i)
				cur.Quantities = append(cur.Quantities, Quantity{Qualifier: coded(r, s, 1, 1, "6063"),
					Value: s.Text(1, 2), Unit: s.Text(1, 3), Segment: i})
			}
		case keyUNS:
			header, cur = false, nil
		case keyCNT:
			if list.take(len(o.Controls)) {
				o.Controls = append(o.Controls, controlTotal(r, d.Segment(i)))
			}
		default:
			if header {
				h.add(i)
			}
		}
	}
	h.finish()
	for _, ref := range o.Document.References {
		if ref.Qualifier.Code == "ON" {
			o.OrderNumber = ref.Value
			break
		}
	}
	checkLineCount(o.Controls, o.Lines)
	return o
}

// actionCounter counts the lines per LIN action code (see OrdrspSummary)
// into o.Actions: at most maxListed different codes are listed; lines
// with a code beyond those count in Lines and ChangedLines only.
type actionCounter struct {
	o     *OrdrspSummary
	r     dict.Resolver
	index map[string]int // code -> Actions index, once there are many codes
}

// count counts a line's action code and says whether it makes the line
// changed.
func (a *actionCounter) count(raw []byte) bool {
	if k, ok := a.find(raw); ok {
		a.o.Actions[k].Lines++
		return a.o.Actions[k].Changed
	}
	code := string(raw)
	ac := ActionCount{Action: Coded{Code: code}, Lines: 1}
	switch code {
	case "":
		ac.Action.Name = "no action code"
	default:
		ac.Action.Name, _ = a.r.CodeName("1229", code)
		ac.Changed = code != "4" && code != "5" && code != "11"
	}
	if len(a.o.Actions) < maxListed {
		a.o.Actions = append(a.o.Actions, ac)
		if a.index != nil {
			a.index[code] = len(a.o.Actions) - 1
		}
	}
	return ac.Changed
}

// find looks a code up: a loop over the few codes of a real message, a
// map once there are more (a hostile one could have a thousand).
func (a *actionCounter) find(raw []byte) (int, bool) {
	if a.index != nil {
		k, ok := a.index[string(raw)] // no allocation
		return k, ok
	}
	for k := range a.o.Actions {
		if a.o.Actions[k].Action.Code == string(raw) { // no allocation
			return k, true
		}
	}
	if len(a.o.Actions) >= 16 {
		a.index = make(map[string]int, 2*len(a.o.Actions))
		for k := range a.o.Actions {
			a.index[a.o.Actions[k].Action.Code] = k
		}
	}
	return 0, false
}

// aperakSummary reads the header, the message-level texts and every ERC
// group with its FTX and RFF.
func (d *Document) aperakSummary(m *Message) *AperakSummary {
	a := &AperakSummary{Errors: []AppError{}}
	a.Sender, a.Recipient = d.partyIDs(m)
	list := newListBudget()
	h := headerReader{d: d, m: m, sum: &a.Document, list: list}
	r := m.resolver
	var cur *AppError // the listed error the FTX/RFF belong to
	inErrors := false
	for i := m.First + 1; i <= m.Last; i++ {
		rec := &d.segs[i]
		if rec.flags&fBadTag != 0 {
			continue
		}
		switch key := packKey(rec.tag); {
		case key == keyERC:
			inErrors, cur = true, nil
			a.ErrorsTotal++
			if list.take(len(a.Errors)) {
				s := d.Segment(i)
				e := AppError{Code: s.Text(1, 1), CodeList: s.Text(1, 2), Agency: coded(r, s, 1, 3, "3055"), Segment: i}
				e.Name, _ = r.CodeName("9321", e.Code)
				a.Errors = append(a.Errors, e)
				cur = &a.Errors[len(a.Errors)-1]
			}
		case key == keyFTX && !inErrors:
			if depth, _, known := d.level(m, i); (!known || depth == 0) && list.take(len(a.Texts)) {
				a.Texts = append(a.Texts, freeText(d.Segment(i)))
			}
		case key == keyFTX:
			if cur != nil && list.take(len(cur.Texts)) {
				cur.Texts = append(cur.Texts, freeText(d.Segment(i)))
			}
		case key == keyRFF && inErrors:
			if cur != nil && list.take(len(cur.References)) {
				cur.References = append(cur.References, reference(r, d.Segment(i)))
			}
		case !inErrors:
			h.add(i)
		}
	}
	h.finish()
	return a
}

// freeText joins the text lines of an FTX (C108/4440, up to five).
func freeText(s Segment) string {
	var parts []string
	for c := 1; c <= 5; c++ {
		if v := s.Text(4, c); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}
