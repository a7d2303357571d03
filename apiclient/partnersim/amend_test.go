package partnersim

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
	"github.com/nutrab2b/b2bx/edi/orderdiff"
	"github.com/stretchr/testify/require"
)

// respond runs the default responder on an ORDERS interchange and returns
// the replies by type.
func respond(t *testing.T, body []byte) map[string][][]byte {
	t.Helper()
	u := Upload{ID: "upload-1", Payload: body, ReceivedAt: time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)}
	out := map[string][][]byte{}
	for _, r := range (DefaultResponder{}).Respond(u) {
		out[r.MessageType] = append(out[r.MessageType], r.Payload)
	}
	return out
}

// diffOf diffs an ORDRSP against the ORDERS interchange it answers.
func diffOf(t *testing.T, orders, ordrsp []byte) *orderdiff.Diff {
	t.Helper()
	od, err := edi.Parse(orders)
	require.NoError(t, err)
	rd := requireCleanEDIFACT(t, ordrsp)
	ds, err := orderdiff.Documents(od, rd)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Empty(t, ds[0].Warnings)
	return ds[0]
}

// TestAmendmentsRoundTrip: every amendment the simulated partner makes is
// what the diff finds, and every kind occurs.
func TestAmendmentsRoundTrip(t *testing.T) {
	g := edigen.New(21)
	buyer := edigen.Party{GLN: g.GLN("40"), Name: "ACME DE"}
	supplier := edigen.Party{GLN: g.GLN("43"), Name: "Nordwerk"}
	at := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	seen := map[amendment]int{}
	for n := range 120 {
		dir := []edigen.Directory{edigen.D96A, edigen.D25A}[n%2]
		o := g.Order(buyer, supplier, at, 1+n%4)
		body := edigen.Orders(dir, edigen.Envelope{Sender: buyer.GLN, Recipient: supplier.GLN, ControlRef: fmt.Sprint(n), Prepared: at}, o)
		_, _, kind := amend(o)
		seen[kind]++
		rsps := respond(t, body)["ORDRSP"]
		require.Len(t, rsps, 1)
		d := diffOf(t, body, rsps[0])
		require.Equal(t, o.Number, d.OrderRef)
		require.Equal(t, len(o.Lines), len(d.Lines))
		c := d.Counts
		switch kind {
		case amendNone:
			require.False(t, d.HasChanges(), "%s: %s", kind, d)
			require.Equal(t, "29", d.Status.Code)
			continue
		case amendRejected:
			require.Equal(t, 1, c.Rejected, "%s: %s", kind, d)
			if len(o.Lines) == 1 {
				require.Equal(t, "27", d.Status.Code, "the only line rejected: the order is not accepted")
			}
		default:
			require.Equal(t, 1, c.Changed, "%s: %s", kind, d)
		}
		require.Equal(t, len(o.Lines)-1, c.Unchanged, "%s: %s", kind, d)
		require.True(t, d.HasChanges())
		for _, l := range d.Lines {
			if l.Kind == orderdiff.Unchanged {
				continue
			}
			want := map[amendment]orderdiff.Field{amendShort: orderdiff.FieldQuantity, amendPrice: orderdiff.FieldPrice, amendLater: orderdiff.FieldDate}[kind]
			if kind == amendRejected {
				require.Equal(t, "7", l.Action.Code)
				require.Empty(t, l.Changes)
				continue
			}
			require.Equal(t, "3", l.Action.Code)
			require.Len(t, l.Changes, 1, "%s", d)
			ch := l.Changes[0]
			require.Equal(t, want, ch.Field, "%s", d)
			if kind == amendShort {
				require.Less(t, atoi(t, ch.Answered.Value), atoi(t, ch.Ordered.Value), "short-shipped")
			}
		}
	}
	for _, k := range amendments {
		require.Positive(t, seen[k], "amendment %s never chosen in %v", k, seen)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	_, err := fmt.Sscan(s, &n)
	require.NoError(t, err)
	return n
}

// TestAmendmentDeterministic: the same order gets the same answer.
func TestAmendmentDeterministic(t *testing.T) {
	body, _ := demoOrders(edigen.D96A, 3)
	require.Equal(t, respond(t, body), respond(t, body))
}

// TestFixtureOrderAmended: testdata's PO-4711 (the order the e2e and the
// demo upload) gets its net price changed on line 1, keeping the order's
// LIN numbers and item types, and the answers link back to the upload.
func TestFixtureOrderAmended(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "orders_d96a.edi"))
	require.NoError(t, err)
	f := newFixture(t, HTTP1, WithResponder(DefaultResponder{}), WithResponseDelay(0))
	resp, rb := f.upload(t, connA, "4012345000009:PO-4711:orders:1", "application/edifact", bytes.NewReader(body))
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(rb))
	got := f.fetchAll(t, connA)
	require.Len(t, got["ORDRSP"], 1)
	d := diffOf(t, body, got["ORDRSP"][0])
	require.Equal(t, "ORDRSP RSP-PO-4711 for order PO-4711 (4 Change): 2 lines: 1 changed, 1 unchanged\n"+
		"line 1   4000862141404  changed (3 Changed): price 1.25 → 1.37", d.String())
	rd := requireCleanEDIFACT(t, got["ORDRSP"][0])
	require.Equal(t, []string{"1", "2"}, segValues(rd, "LIN", 1, 1))
	require.Equal(t, []string{"EN", "EN"}, segValues(rd, "LIN", 3, 2))

	up := answers.Upload{Key: "4012345000009:PO-4711:orders:1", Sender: "4012345000009", Recipient: "4098765000003",
		ControlRef: "ICR0001", BGMNumbers: []string{"PO-4711"}, UploadID: "u1"}
	var as []answers.Answer
	for _, typ := range []string{"CONTRL", "ORDRSP"} {
		doc := requireCleanEDIFACT(t, got[typ][0])
		as = append(as, answers.FromDocument(doc, typ, time.Time{})...)
	}
	x := answers.NewIndex([]answers.Upload{up}, as)
	require.Equal(t, "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:1)", x.AnswerText(0))
	require.Equal(t, "answers upload of PO-4711 (key 4012345000009:PO-4711:orders:1)", x.AnswerText(1))
	require.Equal(t, "answered by CONTRL: accepted; ORDRSP: 1 of 2 lines changed", x.UploadText(0))
}

// TestParsedOrderEchoedAsWritten: quantities that are not whole numbers,
// lines without quantity or item number and prices with more than two
// decimals are repeated (or left out) so an accepting ORDRSP shows no
// change. The numbers cover every amendment: rejected (PO-A), price and
// short with nothing they fit, so none (PO-B, PO-2025-0815), none (PO-C),
// later (PO-D).
func TestParsedOrderEchoedAsWritten(t *testing.T) {
	for _, number := range []string{"PO-A", "PO-B", "PO-C", "PO-D", "PO-2025-0815"} {
		body := []byte("UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+X1'UNH+1+ORDERS:D:96A:UN'" +
			"BGM+220+" + number + "+9'DTM+137:20250312:102'NAD+BY+4012345000009::9'" +
			"LIN+10++4000862141404:EN'QTY+21:12.5:KGM'PRI+AAA:1.255'" +
			"LIN+20'PIA+5+ART-7:SA'" +
			"LIN+30++4000862141411:EN'QTY+21:007'" +
			"UNS+S'UNT+13+1'UNZ+1+X1'")
		requireCleanEDIFACT(t, body)
		d := diffOf(t, body, respond(t, body)["ORDRSP"][0])
		_, _, kind := amend(orderFrom(requireCleanEDIFACT(t, body), requireCleanEDIFACT(t, body).Messages[0]))
		switch kind {
		case amendNone:
			require.False(t, d.HasChanges(), "%s", d)
		case amendRejected:
			require.Equal(t, 1, d.Counts.Rejected, "%s", d)
		default:
			require.Equal(t, 1, d.Counts.Changed, "%s: %s", kind, d)
			require.NotEqual(t, amendShort, kind, "no whole quantity >= 2 to short-ship")
			require.NotEqual(t, amendPrice, kind, "no price in cents to change")
		}
		require.Equal(t, []string{"10", "20", "30"}, []string{d.Lines[0].Line, d.Lines[1].Line, d.Lines[2].Line})
	}
}
