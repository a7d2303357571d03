package partnersim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/edi"
)

func contrlOf(t *testing.T, replies []Reply) *edi.ContrlSummary {
	t.Helper()
	if len(replies) == 0 || replies[0].MessageType != "CONTRL" {
		t.Fatalf("replies = %+v, want a CONTRL first", replies)
	}
	doc, err := edi.Parse(replies[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Messages) != 1 {
		t.Fatalf("CONTRL interchange has %d messages", len(doc.Messages))
	}
	return doc.Messages[0].Summary().Contrl
}

// The shipped rejectable ORDERS passes edi (so b2bx's pre-flight lets it
// go) but the partner rejects its buyer GLN, a valid GLN that is not the
// sender's; the fixed bytes are taken.
func TestDefaultResponderRejectsWrongBuyerGLN(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := edi.PreflightOrders(data); err != nil {
		t.Fatalf("the rejectable ORDERS must pass the local pre-flight: %v", err)
	}
	u := Upload{ID: "u1", Payload: data, ReceivedAt: time.Date(2025, 3, 12, 10, 31, 0, 0, time.UTC)}
	replies := DefaultResponder{}.Respond(u)
	c := contrlOf(t, replies)
	if c.Action.Code != "4" || len(replies) != 1 {
		t.Fatalf("action %q with %d replies, want 4 (rejected) and no ORDRSP", c.Action.Code, len(replies))
	}
	if len(c.Messages) != 1 || c.Messages[0].Ref != "M0001" || c.Messages[0].Action.Code != "4" {
		t.Fatalf("UCM = %+v", c.Messages)
	}
	segs := c.Messages[0].Segments
	if len(segs) != 1 || segs[0].Position != 5 || len(segs[0].Elements) != 1 {
		t.Fatalf("UCS = %+v, want the NAD+BY at position 5", segs)
	}
	el := segs[0].Elements[0]
	if el.SyntaxError == nil || el.SyntaxError.Code != "12" || el.Element.Element != 2 || el.Element.Component != 1 {
		t.Fatalf("UCD = %+v, want 12 at 2:1", el)
	}

	fixed := []byte(strings.Replace(string(data), "NAD+BY+4012345000085", "NAD+BY+4012345000009", 1))
	u.Payload = fixed
	replies = DefaultResponder{}.Respond(u)
	if c := contrlOf(t, replies); c.Action.Code != "7" || len(replies) != 2 {
		t.Fatalf("fixed: action %q with %d replies, want 7 and an ORDRSP", c.Action.Code, len(replies))
	}
}

// A buyer GLN with a wrong check digit is edi's error (b2bx's pre-flight
// blocks it); sent anyway, the CONTRL reports it once, from the issue.
func TestDefaultResponderReportsCheckDigitOnce(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi"))
	if err != nil {
		t.Fatal(err)
	}
	bad := []byte(strings.Replace(string(data), "NAD+BY+4012345000085", "NAD+BY+4012345000008", 1))
	if _, err := edi.PreflightOrders(bad); err == nil {
		t.Fatal("a wrong check digit must fail the pre-flight")
	}
	c := contrlOf(t, DefaultResponder{}.Respond(Upload{ID: "u1", Payload: bad, ReceivedAt: time.Date(2025, 3, 12, 10, 31, 0, 0, time.UTC)}))
	if c.Action.Code != "4" || len(c.Messages) != 1 || len(c.Messages[0].Segments) != 1 {
		t.Fatalf("CONTRL = %+v, want one UCS", c)
	}
	el := c.Messages[0].Segments[0].Elements
	if c.Messages[0].Segments[0].Position != 5 || len(el) != 1 || el[0].SyntaxError.Code != "12" || el[0].Element.Element != 2 || el[0].Element.Component != 1 {
		t.Fatalf("UCS = %+v, want 12 at the NAD+BY 2:1", c.Messages[0].Segments[0])
	}
}
