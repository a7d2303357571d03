package orders

import (
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/explain"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// maxIssueLines bounds how many parse issues the report lists.
const maxIssueLines = 5

// maxOrderLines bounds how many ORDERS headlines the report lists.
const maxOrderLines = 5

// describe adds the checks that read the parsed document: verdict and
// issues, interchanges, message types, parties, BGM numbers, directory.
func describe(p *Preflight, doc *edi.Document) {
	describeVerdict(p, doc)
	ic := describeInterchanges(p, doc)
	describeMessages(p, doc)
	if ic == nil {
		return
	}
	p.add(CheckSender, OK, "sender "+party(ic.Sender))
	p.add(CheckRecipient, OK, "recipient "+party(ic.Recipient))
	describeOrders(p, doc, ic)
	describeDirectory(p, ic)
	if ic.TestIndicator == "1" {
		p.add(CheckTest, Warning, "the UNB marks the interchange as a test (0035 = 1): the partner may not process it as a real order")
	}
}

func describeVerdict(p *Preflight, doc *edi.Document) {
	v := explain.VerdictOf(doc)
	sev := OK
	switch {
	case v.Errors > 0:
		sev = Blocking
	case v.Warnings > 0:
		sev = Warning
	}
	p.add(CheckParse, sev, "parse "+v.String())
	issues := doc.Issues()
	for i, is := range issues {
		if i == maxIssueLines {
			p.add(CheckIssue, Note, fmt.Sprintf("... and %d more (b2bx parse FILE lists all)", len(issues)-i))
			break
		}
		sev := Warning
		if is.Severity == edi.SeverityError {
			sev = Blocking
		}
		p.add(CheckIssue, sev, termsafe.String(is.String()))
	}
}

// describeInterchanges reports the envelope count and returns the one
// interchange with a UNB (the first, when there are several), or nil.
func describeInterchanges(p *Preflight, doc *edi.Document) *edi.Interchange {
	var first *edi.Interchange
	withUNB, bare := 0, 0
	for i := range doc.Interchanges {
		ic := &doc.Interchanges[i]
		if !ic.HasUNB {
			bare++
			continue
		}
		withUNB++
		if first == nil {
			first = ic
		}
	}
	switch {
	case withUNB == 1 && bare == 0:
		p.add(CheckInterchange, OK, fmt.Sprintf("one interchange, control reference %s, syntax %s:%d",
			termsafe.String(first.ControlRef), termsafe.String(first.SyntaxID), first.SyntaxVersion))
	case withUNB == 0:
		p.add(CheckInterchange, Blocking, "no interchange envelope (UNB ... UNZ): the inbox takes exactly one interchange")
	case withUNB > 1:
		p.add(CheckInterchange, Blocking, fmt.Sprintf("%d interchanges: the inbox takes exactly one per upload", withUNB))
	default:
		p.add(CheckInterchange, Blocking, "segments outside the interchange: the inbox takes exactly one interchange and nothing else")
	}
	return first
}

func describeMessages(p *Preflight, doc *edi.Document) {
	counts := map[string]int{}
	var order []string
	for _, m := range doc.Messages {
		t := m.Type
		if counts[t] == 0 {
			order = append(order, t)
		}
		counts[t]++
	}
	parts := make([]string, 0, len(order))
	others := false
	for _, t := range order {
		if t != "ORDERS" {
			others = true
		}
		name := termsafe.String(t)
		if name == "" {
			name = "without type"
		}
		parts = append(parts, fmt.Sprintf("%d %s", counts[t], name))
	}
	switch {
	case len(doc.Messages) == 0:
		p.add(CheckMessages, Blocking, "no messages: there is no order to upload")
	case others:
		p.add(CheckMessages, Blocking, "messages: "+strings.Join(parts, ", ")+"; only ORDERS can be uploaded")
	default:
		p.add(CheckMessages, OK, "messages: "+strings.Join(parts, ", "))
	}
}

func describeOrders(p *Preflight, doc *edi.Document, ic *edi.Interchange) {
	var nums []string
	missing := 0
	for _, m := range ic.Messages {
		if m.Type != "ORDERS" {
			continue
		}
		if n := bgmOf(doc, m); n != "" {
			nums = append(nums, termsafe.String(n))
		} else {
			missing++
		}
	}
	switch {
	case len(nums) == 0 && missing == 0:
		return
	case len(nums) == 1 && missing == 0:
		p.add(CheckOrders, OK, "order (BGM) "+nums[0])
	case missing > 0 && len(nums)+missing == 1:
		p.add(CheckOrders, Blocking, "the ORDERS has no BGM document number, which the key needs")
	default:
		text := "orders (BGM) " + strings.Join(nums, ", ")
		if missing > 0 {
			text += fmt.Sprintf(" and %d without a number", missing)
		}
		p.add(CheckOrders, OK, text+"; with several orders the key uses the control reference "+termsafe.String(ic.ControlRef))
	}
	for i, m := range ic.Messages {
		if i == maxOrderLines {
			p.add(CheckOrders, Note, fmt.Sprintf("... and %d more messages", len(ic.Messages)-i))
			break
		}
		if m.Type == "ORDERS" {
			p.add(CheckOrders, Note, explain.Headline(&ic.Messages[i]))
		}
	}
}

// bgmOf reads the message's document number the way the key does (BGM
// element 2, component 1: 1004 in D.96A, C106/1004 from D.01B on).
func bgmOf(doc *edi.Document, m edi.Message) string {
	for i := m.First + 1; i <= m.Last; i++ {
		if sg := doc.Segment(i); sg.Tag() == "BGM" && sg.TagValid() {
			return sg.Text(2, 1)
		}
	}
	return ""
}

func describeDirectory(p *Preflight, ic *edi.Interchange) {
	seen := map[string]bool{}
	for _, m := range ic.Messages {
		id := m.Structure + "\x00" + m.DirectoryNote
		if seen[id] {
			continue
		}
		seen[id] = true
		switch {
		case m.Structure != "" && m.DirectoryNote == "":
			p.add(CheckDirectory, OK, "directory "+termsafe.String(m.Structure))
		case m.Structure != "":
			p.add(CheckDirectory, Note, "directory "+termsafe.String(m.Structure)+": "+termsafe.String(m.DirectoryNote))
		default:
			p.add(CheckDirectory, Note, "directory: "+termsafe.String(m.DirectoryNote))
		}
	}
}

// party is "4012345000009 (qualifier 14)".
func party(pt edi.Party) string {
	id := termsafe.String(pt.ID)
	if id == "" {
		id = "(missing)"
	}
	if pt.Qualifier != "" {
		id += " (qualifier " + termsafe.String(pt.Qualifier) + ")"
	}
	return id
}
