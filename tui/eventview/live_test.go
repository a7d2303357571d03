package eventview

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/events/webhook"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const liveSecret = "whsec_live-CANARY-e1f0"

func liveEvent(subject string, seq int64) []byte {
	return []byte(fmt.Sprintf(`{"specversion":"2.0","id":"e-%s-%d","type":"nutrab2b.orders.confirmed.v2","source":"/t","subject":"%s","time":"2026-03-12T10:30:00Z","sender":"4012345000009","receiver":"4098765000003","correlationid":"c","idempotencykey":"4012345000009:%s-%d:confirmed:1","sequence":%d,"env":"test","data":{}}`,
		subject, seq, subject, subject, seq, seq))
}

func postLive(t *testing.T, addr string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
	req.Header.Set(events.SignatureHeader, events.Sign(secret.New(liveSecret), time.Now().Unix(), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// runOne runs a Cmd with a generous bound (it may wait for a delivery).
func runOne(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(20 * time.Second):
		t.Fatal("the Cmd did not return")
	}
	return nil
}

// arrive feeds the armed Cmd's messages to the model until n deliveries
// have arrived and are drawn.
func arrive(t *testing.T, m Model, wait tea.Cmd, n int) (Model, tea.Cmd) {
	t.Helper()
	for m.acc.total < n || m.acc.dirty {
		m, wait = m.Update(runOne(t, wait))
	}
	return m, wait
}

func TestLiveModeStreamsDeliveriesAndStopsOnClose(t *testing.T) {
	m := New(testCommon(120, 40), Options{Listen: true, ListenAddr: "127.0.0.1:0", LiveDir: t.TempDir()})
	if m.focus != inSecret {
		t.Fatalf("live mode without a secret must ask for it (focus %d)", m.focus)
	}
	for _, r := range liveSecret {
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	m, cmd := m.Update(keyMsg("enter"))
	m, wait := m.Update(runOne(t, cmd))
	if !m.Live() || wait == nil {
		t.Fatalf("not live: %s", m.note)
	}
	addr := m.LiveAddr()
	// Sequence 2 first: parked, the streams show 1 missing.
	if st := postLive(t, addr, liveEvent("PO-1", 2)); st != http.StatusAccepted {
		t.Fatalf("seq 2: %d", st)
	}
	m, wait = arrive(t, m, wait, 1)
	if got := m.rep.raw.Streams; len(got) != 1 || len(got[0].Parked) != 1 || strings.Join(got[0].Missing, ",") != "1" {
		t.Fatalf("streams after seq 2: %+v", got)
	}
	v := m.View()
	if !strings.Contains(v, "LIVE on http://"+addr) || !strings.Contains(v, "parked 2") || !strings.Contains(v, "replay 1") {
		t.Fatalf("view after seq 2:\n%s", v)
	}
	// Sequence 1 fills the gap: the parked event is released.
	postLive(t, addr, liveEvent("PO-1", 1))
	m, wait = arrive(t, m, wait, 2)
	if got := m.rep.raw.Streams[0]; len(got.Parked) != 0 || len(got.Missing) != 0 || got.LastProcessed != 2 {
		t.Fatalf("stream after seq 1: %+v", got)
	}
	if m.rep.raw.Events[0].Outcome != events.OutcomeReleased {
		t.Fatalf("the parked event is not shown released: %+v", m.rep.raw.Events[0])
	}
	v = m.View()
	if !strings.Contains(v, "SEQUENCE_OUT_OF_ORDER") || !strings.Contains(v, "2 deliveries") || strings.Contains(v, liveSecret) {
		t.Fatalf("view after seq 1:\n%s", v)
	}
	if testing.Verbose() {
		t.Log("\n" + v)
	}
	// Close stops the listener: the next delivery finds no one.
	m.Close()
	if _, err := http.Post("http://"+addr+"/webhook", "application/json", bytes.NewReader(liveEvent("PO-1", 3))); err == nil {
		t.Fatal("the listener still answers after Close")
	}
	if msg, ok := runOne(t, wait).(liveRecordMsg); !ok || msg.ok {
		t.Fatalf("the waiting Cmd did not end with the listener: %+v", msg)
	}
}

// The live report stays bounded and consistent however many deliveries
// arrive: the oldest leave, indexes are renumbered, the count goes on.
func TestLiveReportIsBounded(t *testing.T) {
	a := newLiveAcc()
	const n = maxLiveDeliveries*2 + 7
	for i := range n {
		r := webhook.Record{Answer: events.Answer{Status: 200, Result: events.ResultACK, Delivery: fmt.Sprintf("%012d.http", i+1), Committed: true,
			Events:   []events.EventAnswer{{Index: i, ID: fmt.Sprintf("e-%d", i), Sender: "s", Subject: "x", Sequence: int64(i + 1), Outcome: events.OutcomeProcessed}},
			Findings: []events.Finding{{Severity: events.SevWarning, Code: events.CodeKeyForm, Delivery: i, Event: i}}}}
		if i%2 == 1 { // releases the previous delivery's event
			r.Released = []events.Released{{Event: i - 1}}
		}
		a.add(r)
	}
	if a.total != n || len(a.rep.Deliveries) > maxLiveDeliveries || len(a.rep.Events) > maxLiveEvents || len(a.rep.Findings) > maxLiveFindings*3/2 {
		t.Fatalf("total %d, kept %d deliveries %d events %d findings", a.total, len(a.rep.Deliveries), len(a.rep.Events), len(a.rep.Findings))
	}
	for i, d := range a.rep.Deliveries {
		if d.Index != i || len(d.Events) != 1 || a.rep.Events[d.Events[0]].Delivery != i {
			t.Fatalf("delivery %d: %+v", i, d)
		}
	}
	for _, f := range a.rep.Findings {
		if f.Delivery < 0 || f.Delivery >= len(a.rep.Deliveries) || f.Event >= len(a.rep.Events) || f.Event >= 0 && a.rep.Events[f.Event].Delivery != f.Delivery {
			t.Fatalf("finding %+v points outside the kept report", f)
		}
	}
	last := a.rep.Events[len(a.rep.Events)-1]
	if last.ID != fmt.Sprintf("e-%d", n-1) || a.rep.Warnings != len(a.rep.Findings) {
		t.Fatalf("newest event %+v, warnings %d of %d findings", last, a.rep.Warnings, len(a.rep.Findings))
	}
}
