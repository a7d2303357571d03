package partnersim

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim/edigen"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/stretchr/testify/require"
)

// requireCleanEDIFACT parses b with edi and fails on any error issue.
func requireCleanEDIFACT(t *testing.T, b []byte) *edi.Document {
	t.Helper()
	doc, err := edi.Parse(b)
	require.NoError(t, err)
	for _, is := range doc.Issues() {
		require.NotEqual(t, edi.SeverityError, is.Severity, "%s\n%s", is, b)
	}
	require.Len(t, doc.Interchanges, 1)
	return doc
}

// fetchAll claims and downloads every due entry of conn, returning the
// payloads by message type in list order.
func (f *fixture) fetchAll(t *testing.T, conn string) map[string][][]byte {
	t.Helper()
	out := map[string][][]byte{}
	for _, e := range f.list(t, conn, "").Data {
		cr := f.claim(t, conn, e.DeliveryAttemptID)
		d := f.fetch(t, context.Background(), conn, e.DeliveryAttemptID, cr.ClaimToken)
		require.NoError(t, d.readErr)
		require.Equal(t, "verified", d.trailer)
		out[e.MessageType] = append(out[e.MessageType], d.body)
	}
	return out
}

func segValues(doc *edi.Document, tag string, e, c int) []string {
	var out []string
	for i := 0; i < doc.Len(); i++ {
		if s := doc.Segment(i); s.Tag() == tag {
			out = append(out, s.Value(e, c))
		}
	}
	return out
}

func demoOrders(dir edigen.Directory, n int) ([]byte, []edigen.Order) {
	g := edigen.New(11)
	buyer := edigen.Party{GLN: g.GLN("40"), Name: "ACME DE Handels GmbH", City: "Köln", Country: "DE"}
	supplier := edigen.Party{GLN: g.GLN("43"), Name: "Nordwerk Großhandel GmbH", City: "Hamburg", Country: "DE"}
	at := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	var orders []edigen.Order
	for i := range n {
		o := g.Order(buyer, supplier, at, 2+i)
		o.Ref = "M" + string(rune('1'+i))
		orders = append(orders, o)
	}
	env := edigen.Envelope{Sender: buyer.GLN, Recipient: supplier.GLN, ControlRef: "IC4711", Prepared: at}
	return edigen.Orders(dir, env, orders...), orders
}

func TestUploadAnsweredWithContrlAndOrdrsp(t *testing.T) {
	for _, tc := range []struct {
		dir         edigen.Directory
		contrl, rsp string
	}{{edigen.D96A, "CONTRL:2:2:UN", "ORDRSP:D:96A:UN"}, {edigen.D25A, "CONTRL:4:1:UN", "ORDRSP:D:25A:UN"}} {
		t.Run(tc.dir.String(), func(t *testing.T) {
			f := newFixture(t, HTTP1, WithResponder(DefaultResponder{}), WithResponseDelay(3*time.Second))
			body, orders := demoOrders(tc.dir, 2)
			requireCleanEDIFACT(t, body)
			resp, rb := f.upload(t, connA, "k-1", "application/edifact", bytes.NewReader(body))
			require.Equal(t, http.StatusAccepted, resp.StatusCode, string(rb))
			require.Empty(t, f.list(t, connA, "").Data, "answers take a moment")
			f.clock.Advance(3 * time.Second)
			got := f.fetchAll(t, connA)
			require.Len(t, got["CONTRL"], 1)
			require.Len(t, got["ORDRSP"], 2)

			c := requireCleanEDIFACT(t, got["CONTRL"][0])
			x := c.Interchanges[0]
			require.Equal(t, orders[0].Supplier.GLN, x.Sender.ID, "the answer comes from the recipient")
			require.Equal(t, orders[0].Buyer.GLN, x.Recipient.ID)
			require.Equal(t, tc.contrl, strings.Join([]string{x.Messages[0].Type, x.Messages[0].Version, x.Messages[0].Release, x.Messages[0].Agency}, ":"))
			require.Equal(t, []string{"IC4711"}, segValues(c, "UCI", 1, 1))
			require.Equal(t, []string{"7"}, segValues(c, "UCI", 4, 1))
			require.Empty(t, segValues(c, "UCM", 1, 1))

			// The replay of the same upload does not answer twice.
			resp, _ = f.upload(t, connA, "k-1", "application/edifact", bytes.NewReader(body))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			f.clock.Advance(time.Minute)
			require.Empty(t, f.list(t, connA, "").Data)

			for i, raw := range got["ORDRSP"] {
				d := requireCleanEDIFACT(t, raw)
				m := d.Interchanges[0].Messages[0]
				require.Equal(t, tc.rsp, m.Type+":"+m.Version+":"+m.Release+":"+m.Agency)
				require.Equal(t, []string{"ON"}, segValues(d, "RFF", 1, 1))
				require.Equal(t, []string{orders[i].Number}, segValues(d, "RFF", 1, 2), "RFF+ON carries the BGM number")
				require.Equal(t, []string{"231"}, segValues(d, "BGM", 1, 1))
				var gtins []string
				for _, l := range orders[i].Lines {
					gtins = append(gtins, l.GTIN)
				}
				require.Equal(t, gtins, segValues(d, "LIN", 3, 1), "same lines")
			}
		})
	}
}

func TestUploadWithErrorsRejectedByContrl(t *testing.T) {
	good, _ := demoOrders(edigen.D96A, 1)
	// Break it: a wrong UNT count and a control character in the 4th segment.
	broken := bytes.Replace(good, []byte("UNT+"), []byte("UNT+9"), 1)
	broken = bytes.Replace(broken, []byte("DTM+137:"), []byte("DTM+137:\x01"), 1)
	notOrders := bytes.Replace(good, []byte("ORDERS:D:96A"), []byte("INVOIC:D:96A"), 1)
	for _, tc := range []struct {
		name   string
		body   []byte
		check  func(t *testing.T, c *edi.Document)
		answer int
	}{
		{"envelope and segment errors", broken, func(t *testing.T, c *edi.Document) {
			require.Equal(t, []string{"4"}, segValues(c, "UCI", 4, 1))
			require.Equal(t, []string{"M1"}, segValues(c, "UCM", 1, 1))
			require.Equal(t, []string{"ORDERS"}, segValues(c, "UCM", 2, 1))
			require.Equal(t, []string{"4"}, segValues(c, "UCM", 3, 1))
			require.Equal(t, []string{"29"}, segValues(c, "UCM", 4, 1), "UNT count error: 0085 29")
			require.Equal(t, []string{"3"}, segValues(c, "UCS", 1, 1), "DTM is segment 3 of the message")
			require.Equal(t, []string{"21"}, segValues(c, "UCD", 1, 1), "invalid character: 0085 21")
			require.Equal(t, []string{"1"}, segValues(c, "UCD", 2, 1))
			require.Equal(t, []string{"2"}, segValues(c, "UCD", 2, 2))
		}, 1},
		{"not an ORDERS", notOrders, func(t *testing.T, c *edi.Document) {
			require.Equal(t, []string{"4"}, segValues(c, "UCI", 4, 1))
			require.Equal(t, []string{"INVOIC"}, segValues(c, "UCM", 2, 1))
		}, 1},
		{"no interchange header", []byte("hello world"), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, HTTP1, WithResponder(DefaultResponder{}), WithResponseDelay(0))
			resp, _ := f.upload(t, connA, "k", "application/edifact", bytes.NewReader(tc.body))
			require.Equal(t, http.StatusAccepted, resp.StatusCode)
			got := f.fetchAll(t, connA)
			require.Len(t, got["CONTRL"], tc.answer)
			require.Empty(t, got["ORDRSP"], "rejected orders get no ORDRSP")
			if tc.check != nil {
				tc.check(t, requireCleanEDIFACT(t, got["CONTRL"][0]))
			}
			var enq int
			for _, ev := range f.sim.Audit() {
				if ev.Action == AuditAnswerEnqueued {
					enq++
				}
			}
			require.Equal(t, tc.answer, enq)
		})
	}
}

func TestResponderFuncAndOrdrspAfter(t *testing.T) {
	var seen []Upload
	f := newFixture(t, HTTP1, WithResponseDelay(time.Second), WithResponder(ResponderFunc(func(u Upload) []Reply {
		seen = append(seen, u)
		return []Reply{{MessageType: "APERAK", Payload: []byte("x"), After: time.Minute}}
	})))
	resp, _ := f.upload(t, connA, "k", "application/octet-stream", strings.NewReader("abc"))
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Len(t, seen, 1)
	require.Equal(t, "k", seen[0].IdempotencyKey)
	f.clock.Advance(time.Minute)
	require.Empty(t, f.list(t, connA, "").Data)
	f.clock.Advance(time.Second)
	require.Len(t, f.list(t, connA, "").Data, 1)
}

// TestDemoPayloadsAreCleanEDIFACT runs every demo delivery through edi.
func TestDemoPayloadsAreCleanEDIFACT(t *testing.T) {
	sim := New(WithClock(NewFakeClock(timeZero)))
	d, err := SeedDemo(sim, DemoOptions{Secret: canarySecrets, LargeSize: 1 << 20})
	require.NoError(t, err)
	for _, c := range d.Connections {
		for _, e := range sim.conns[c.ConnectionID].entries {
			doc := requireCleanEDIFACT(t, e.payload)
			for _, is := range doc.Issues() {
				t.Errorf("%s: %s", e.messageType, is)
			}
			require.Equal(t, e.messageType, doc.Interchanges[0].Messages[0].Type)
		}
	}
}
