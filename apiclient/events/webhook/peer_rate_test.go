package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/internal/fakeclock"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// A peer whose sender used up this second's rate is answered 429
// NB-E012 with Retry-After before its body takes a slot: with every
// slot held (by another address), it gets that answer, not 503 BUSY.
func TestSenderRateIsCheckedBeforeASlot(t *testing.T) {
	clock := fakeclock.New(time.Now()) // signatures are made with the real clock
	h, _, err := Open(Config{Dir: t.TempDir(), Now: clock.Now, BodyTimeout: 5 * time.Second,
		Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, RateLimit: 2}})
	if err != nil {
		t.Fatal(err)
	}
	h.InFlight, h.SlotWait = 1, 3*time.Second
	addr := liveServer(t, h, nil)
	post := func(body []byte) (int, http.Header, events.Answer) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
		req.Header.Set(events.SignatureHeader, events.Sign(secret.New(canarySecret), time.Now().Unix(), body))
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var a events.Answer
		_ = json.Unmarshal(raw, &a)
		return resp.StatusCode, resp.Header, a
	}
	// 127.0.0.1 delivers for the test sender: its whole limit this second
	if st, _, a := post(batch(ev{seq: 1}, ev{seq: 2})); st != http.StatusOK {
		t.Fatalf("the first two events: %d %+v", st, a)
	}
	// another address holds the one slot
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, slowHead(100)+"["); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); h.inFlight() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow delivery never took its slot")
		}
	}
	st, hd, a := post(ev{seq: 3}.json())
	if st != http.StatusTooManyRequests || a.Code != events.NBRateLimit || hd.Get("Retry-After") != "1" || a.Result != events.ResultRetry {
		t.Fatalf("over the rate with every slot held: %d Retry-After %q %+v", st, hd.Get("Retry-After"), a)
	}
	if !strings.Contains(a.Message, "nothing was read") || !strings.Contains(a.Message, senderGLN) {
		t.Fatalf("the answer does not say why: %q", a.Message)
	}
	if names, _ := h.Store.Names(); len(names) != 1 {
		t.Fatalf("only the first delivery is committed: %v", names)
	}
}

// CheckPeerRate refuses only a known peer all of whose senders are at
// their limit in the current second.
func TestCheckPeerRate(t *testing.T) {
	now := time.Date(2026, 3, 12, 10, 31, 0, 0, time.UTC)
	clock := fakeclock.New(now)
	h, _, err := Open(Config{Dir: t.TempDir(), Now: clock.Now,
		Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, RateLimit: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rc := h.Receiver
	if _, ok := rc.CheckPeerRate("192.0.2.1", now); !ok {
		t.Fatal("an unknown peer is refused")
	}
	rc.NoteSenders("192.0.2.1", []string{senderGLN, "4012345000016"})
	if _, ok := rc.CheckPeerRate("192.0.2.1", now); !ok {
		t.Fatal("a peer whose senders delivered nothing yet is refused")
	}
	d := events.Delivery{Header: http.Header{}, Body: ev{seq: 1}.json()}
	d.Header.Set(events.SignatureHeader, events.Sign(secret.New(canarySecret), now.Unix(), d.Body))
	if a := rc.DeliverAll([]events.Arrival{{Delivery: d, Now: now}}, batchCommitter{s: h.Store})[0]; !a.Committed {
		t.Fatalf("not committed: %+v", a)
	}
	if _, ok := rc.CheckPeerRate("192.0.2.1", now); !ok {
		t.Fatal("refused while one of its senders is under the limit")
	}
	rc.NoteSenders("192.0.2.9", []string{senderGLN})
	if a, ok := rc.CheckPeerRate("192.0.2.9", now); ok || a.Status != http.StatusTooManyRequests || a.RetryAfter != 1 {
		t.Fatalf("a peer of a sender at its limit: ok %v %+v", ok, a)
	}
	if _, ok := rc.CheckPeerRate("192.0.2.9", now.Add(time.Second)); !ok {
		t.Fatal("refused in the next second")
	}
}
