package edi

import (
	"github.com/nutrab2b/b2bx/edi/dict"
)

// Summary is what a person wants to know first about a message. Exactly
// one of the fields is set, by message type. Strings hold decoded payload
// text: sanitise them for display (termsafe). Code names come from the
// directory of the message (see Message.DirectoryNote for D.25A).
type Summary struct {
	Orders *OrdersSummary `json:"orders,omitempty"`
	Ordrsp *OrdrspSummary `json:"ordrsp,omitempty"`
	Aperak *AperakSummary `json:"aperak,omitempty"`
	Contrl *ContrlSummary `json:"contrl,omitempty"`
}

// Coded is a code from the data with its name from the directory; Name is
// empty when the directory has no list for the element or the code is
// not in it.
type Coded struct {
	Code string `json:"code"`
	Name string `json:"name,omitempty"`
}

// DateTime is a DTM date (C507).
type DateTime struct {
	Qualifier Coded  `json:"qualifier"` // 2005, e.g. 137 "Document/message date/time"
	Value     string `json:"value"`     // 2380 as written
	Format    Coded  `json:"format"`    // 2379, e.g. 102 "CCYYMMDD"
	// ISO is Value as "2025-03-12" or "2025-03-12T10:30" for the formats
	// 101, 102, 201, 203, 204 when it is a valid date; empty otherwise.
	ISO     string `json:"iso,omitempty"`
	Segment int    `json:"segment"`
}

// PartySummary is a NAD party of the message header.
type PartySummary struct {
	Role   Coded  `json:"role"`            // 3035, e.g. BY "Buyer"
	ID     string `json:"id,omitempty"`    // C082/3039
	Agency Coded  `json:"agency,omitzero"` // C082/3055, e.g. 9 "GS1" (EAN)
	// GLN is true when the id is a GS1 Global Location Number: agency 9.
	GLN     bool   `json:"gln"`
	Name    string `json:"name,omitempty"`   // C080 party name, else C058 name and address, components joined by ", "
	Street  string `json:"street,omitempty"` // C059, lines joined by ", "
	City    string `json:"city,omitempty"`
	Country string `json:"country,omitempty"`
	Segment int    `json:"segment"`
}

// Reference is an RFF reference (C506).
type Reference struct {
	Qualifier Coded  `json:"qualifier"` // 1153, e.g. ON "Order number (purchase)"
	Value     string `json:"value"`     // 1154
	Segment   int    `json:"segment"`
}

// DocumentSummary is the header of ORDERS, ORDRSP and APERAK: BGM, the
// document date and the header references and parties.
type DocumentSummary struct {
	Name         Coded  `json:"name"`                  // BGM C002/1001, e.g. 220 "Order"
	Number       string `json:"number"`                // BGM 1004 (C106/1004 in D.24A)
	Function     Coded  `json:"function"`              // BGM 1225, e.g. 9 "Original"
	ResponseType Coded  `json:"responseType,omitzero"` // BGM 4343, e.g. AC
	// Date is the DTM with qualifier 137 (document date) at message level.
	Date       *DateTime      `json:"date,omitempty"`
	Dates      []DateTime     `json:"dates,omitempty"`      // every message-level DTM
	References []Reference    `json:"references,omitempty"` // header RFFs (the document's own reference groups)
	Parties    []PartySummary `json:"parties,omitempty"`    // header NADs
}

// ControlTotal is a CNT control total (C270).
type ControlTotal struct {
	Qualifier Coded  `json:"qualifier"` // 6069, e.g. 2 "Number of line items in message"
	Value     string `json:"value"`     // 6066
	// LinesMatch, for qualifier 2 (number of line items), says whether
	// the value equals the number of LIN segments; nil otherwise.
	LinesMatch *bool `json:"linesMatch,omitempty"`
	Segment    int   `json:"segment"`
}

// OrdersSummary summarises an ORDERS message.
type OrdersSummary struct {
	Sender    PartyID         `json:"sender"`    // UNB S002
	Recipient PartyID         `json:"recipient"` // UNB S003
	Document  DocumentSummary `json:"document"`
	Lines     int             `json:"lines"` // LIN segments
	Controls  []ControlTotal  `json:"controls,omitempty"`
}

// PartyID is an interchange sender or recipient with the name of its
// identification code qualifier (0007, e.g. 14 "GS1").
type PartyID struct {
	ID        string `json:"id"`
	Qualifier Coded  `json:"qualifier"`
}

// summarize builds the summary of a message of a type b2bx summarises.
func (d *Document) summarize(m *Message) *Summary {
	switch m.Type {
	case "ORDERS":
		return &Summary{Orders: d.ordersSummary(m)}
	case "ORDRSP":
		return &Summary{Ordrsp: d.ordrspSummary(m)}
	case "APERAK":
		return &Summary{Aperak: d.aperakSummary(m)}
	case "CONTRL":
		return &Summary{Contrl: d.contrlSummary(m)}
	}
	return nil
}

// Packed tags the summaries look for.
var (
	tagBGM = [3]byte{'B', 'G', 'M'}
	tagDTM = [3]byte{'D', 'T', 'M'}
	tagRFF = [3]byte{'R', 'F', 'F'}
	tagNAD = [3]byte{'N', 'A', 'D'}
	tagLIN = [3]byte{'L', 'I', 'N'}
	tagQTY = [3]byte{'Q', 'T', 'Y'}
	tagCNT = [3]byte{'C', 'N', 'T'}
	tagUNS = [3]byte{'U', 'N', 'S'}
	tagERC = [3]byte{'E', 'R', 'C'}
	tagFTX = [3]byte{'F', 'T', 'X'}
	tagUCI = [3]byte{'U', 'C', 'I'}
	tagUCF = [3]byte{'U', 'C', 'F'}
	tagUCM = [3]byte{'U', 'C', 'M'}
	tagUCS = [3]byte{'U', 'C', 'S'}
	tagUCD = [3]byte{'U', 'C', 'D'}
)

// coded reads element e, component c as a code and names it.
func coded(r dict.Resolver, s Segment, e, c int, id string) Coded {
	v := s.Text(e, c)
	if v == "" {
		return Coded{}
	}
	name, _ := r.CodeName(id, v)
	return Coded{Code: v, Name: name}
}

// level says where segment i sits in its message's structure: depth 0 at
// message level, and whether it starts its group. known is false when the
// message has no structure or the segment did not fit it.
func (d *Document) level(m *Message, i int) (depth int, trigger, known bool) {
	p := d.segs[i].path
	if m.structure == nil || p == 0 {
		return 0, false, false
	}
	e := &m.structure.Entries[p-1]
	return e.Depth, e.Parent >= 0 && e.Parent == int(p)-2, true
}

// dateTime reads a DTM segment.
func dateTime(r dict.Resolver, s Segment) DateTime {
	dt := DateTime{Qualifier: coded(r, s, 1, 1, "2005"), Value: s.Text(1, 2), Format: coded(r, s, 1, 3, "2379"), Segment: s.Index()}
	dt.ISO = isoDate(dt.Format.Code, dt.Value)
	return dt
}

// isoDate converts the common DTM formats to ISO 8601; other formats and
// invalid values give "".
func isoDate(format, v string) string {
	digits := func(n int) bool {
		if len(v) != n {
			return false
		}
		for i := 0; i < n; i++ {
			if v[i] < '0' || v[i] > '9' {
				return false
			}
		}
		return true
	}
	var date, clock string
	switch {
	case format == "102" && digits(8):
		date = v
	case format == "203" && digits(12):
		date, clock = v[:8], v[8:12]
	case format == "204" && digits(14):
		date, clock = v[:8], v[8:14]
	case format == "101" && digits(6):
		date = century(v[:2]) + v
	case format == "201" && digits(10):
		date, clock = century(v[:2])+v[:6], v[6:10]
	default:
		return ""
	}
	t, ok := parseDateTime(date, "0000")
	if !ok {
		return ""
	}
	out := t.Format("2006-01-02")
	switch len(clock) {
	case 4:
		if clock[:2] > "23" || clock[2:] > "59" {
			return ""
		}
		out += "T" + clock[:2] + ":" + clock[2:]
	case 6:
		if clock[:2] > "23" || clock[2:4] > "59" || clock[4:] > "59" {
			return ""
		}
		out += "T" + clock[:2] + ":" + clock[2:4] + ":" + clock[4:]
	}
	return out
}

// century expands a two-digit year the way time.Parse does for "06":
// 69-99 are 19xx, 00-68 20xx.
func century(yy string) string {
	if yy >= "69" {
		return "19"
	}
	return "20"
}

// party reads a NAD segment.
func party(r dict.Resolver, s Segment) PartySummary {
	p := PartySummary{Role: coded(r, s, 1, 1, "3035"), ID: s.Text(2, 1), Agency: coded(r, s, 2, 3, "3055"),
		City: s.Text(6, 1), Country: s.Text(9, 1), Segment: s.Index()}
	p.GLN = p.Agency.Code == "9"
	p.Street = joinComponents(s, 5, 4)
	p.Name = joinComponents(s, 4, 5)
	if p.Name == "" {
		p.Name = joinComponents(s, 3, 5)
	}
	return p
}

// joinComponents joins the non-empty first n components of element e.
func joinComponents(s Segment, e, n int) string {
	out := ""
	for c := 1; c <= n; c++ {
		if v := s.Text(e, c); v != "" {
			if out != "" {
				out += ", "
			}
			out += v
		}
	}
	return out
}

// reference reads an RFF segment.
func reference(r dict.Resolver, s Segment) Reference {
	return Reference{Qualifier: coded(r, s, 1, 1, "1153"), Value: s.Text(1, 2), Segment: s.Index()}
}

// controlTotal reads a CNT segment.
func controlTotal(r dict.Resolver, s Segment) ControlTotal {
	return ControlTotal{Qualifier: coded(r, s, 1, 1, "6069"), Value: s.Text(1, 2), Segment: s.Index()}
}

// checkLineCount fills LinesMatch of "number of line items" totals.
func checkLineCount(cs []ControlTotal, lines int) {
	for k := range cs {
		if cs[k].Qualifier.Code == "2" {
			n, ok := atoi(cs[k].Value)
			match := ok && n == lines
			cs[k].LinesMatch = &match
		}
	}
}
