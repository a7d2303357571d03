package orderdiff

import (
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/edi"
)

// Documents diffs every ORDRSP message of rsp against the ORDERS message
// of orders it answers: the one whose BGM number is the ORDRSP's RFF+ON.
// When both documents hold exactly one message of their type they are
// compared even if the numbers differ (the Diff warns). It fails with
// ErrNotOrders or ErrNotOrdrsp when a document has no message of its
// type, and with ErrNoOrder (naming the numbers) when an ORDRSP among
// several cannot be paired.
func Documents(orders, rsp *edi.Document) ([]*Diff, error) {
	var ords, rsps []int
	for i, m := range orders.Messages {
		if m.Type == "ORDERS" {
			ords = append(ords, i)
		}
	}
	for i, m := range rsp.Messages {
		if m.Type == "ORDRSP" {
			rsps = append(rsps, i)
		}
	}
	if len(ords) == 0 {
		return nil, fmt.Errorf("%w (the first file holds %s)", ErrNotOrders, typesOf(orders))
	}
	if len(rsps) == 0 {
		return nil, fmt.Errorf("%w (the second file holds %s)", ErrNotOrdrsp, typesOf(rsp))
	}
	byNumber := map[string]int{}
	var numbers []string
	for _, i := range ords {
		n := orderNumber(&orders.Messages[i])
		if _, dup := byNumber[n]; !dup {
			byNumber[n] = i
			numbers = append(numbers, n)
		}
	}
	out := make([]*Diff, 0, len(rsps))
	for _, r := range rsps {
		ref := responseRef(&rsp.Messages[r])
		o, ok := byNumber[ref]
		if !ok || ref == "" {
			if len(ords) != 1 || len(rsps) != 1 {
				return nil, fmt.Errorf("%w: ORDRSP message %s answers order %q; the ORDERS file holds %s",
					ErrNoOrder, rsp.Messages[r].Ref, ref, listSome(numbers))
			}
			o = ords[0]
		}
		d, err := Compare(orders, o, rsp, r)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func orderNumber(m *edi.Message) string {
	if s := m.Summary(); s != nil && s.Orders != nil {
		return s.Orders.Document.Number
	}
	return ""
}

func responseRef(m *edi.Message) string {
	if s := m.Summary(); s != nil && s.Ordrsp != nil {
		return s.Ordrsp.OrderNumber
	}
	return ""
}

// typesOf lists the message types of a document for an error message.
func typesOf(doc *edi.Document) string {
	seen := map[string]bool{}
	var types []string
	for _, m := range doc.Messages {
		if !seen[m.Type] {
			seen[m.Type] = true
			types = append(types, m.Type)
		}
	}
	if len(types) == 0 {
		return "no messages"
	}
	return listSome(types)
}

// listSome quotes the first few values for an error message.
func listSome(ss []string) string {
	const most = 10
	var b strings.Builder
	for i, s := range ss {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(ss)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	return b.String()
}
