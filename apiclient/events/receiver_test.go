package events

import (
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

func receiverDelivery(t *testing.T, file string, now time.Time) Delivery {
	t.Helper()
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(SignatureHeader, Sign(secret.New("k"), now.Unix(), body))
	return Delivery{Name: file, Header: h, Body: body}
}

// A delivery whose commit fails changes nothing: the retry is new.
func TestReceiverDecidesOnlyAfterTheCommit(t *testing.T) {
	r, err := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("k")}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1741775460, 0)
	d := receiverDelivery(t, "valid_event.json", now)
	a := r.Deliver(d, now, func(Delivery) (string, error) { return "", errors.New("disk full") })
	if a.Status != http.StatusInternalServerError || a.Result != ResultRetry || a.Committed {
		t.Fatalf("failed commit: %+v", a)
	}
	a = r.Deliver(d, now, func(Delivery) (string, error) { return "d1", nil })
	if a.Status != http.StatusOK || a.Result != ResultACK {
		t.Fatalf("after the failed commit: %+v", a)
	}
}

// Replaying the committed deliveries gives a new receiver the same state.
func TestReceiverReplayRebuildsTheState(t *testing.T) {
	now := time.Unix(1741775460, 0)
	live, _ := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("k")}})
	var committed []Delivery
	for _, f := range []string{"batch_issues.json", "heartbeat_gap.json", "valid_event.json"} {
		d := receiverDelivery(t, f, now)
		live.Deliver(d, now, func(d Delivery) (string, error) { committed = append(committed, d); return d.Name, nil })
	}
	again, _ := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("other")}})
	for _, d := range committed {
		again.Replay(d)
	}
	ld, le, lk := live.Counts()
	ad, ae, ak := again.Counts()
	if ld != ad || le != ae || lk != ak || ld != 3 {
		t.Fatalf("counts live %d/%d/%d, replayed %d/%d/%d", ld, le, lk, ad, ae, ak)
	}
	ls, as := live.Streams(), again.Streams()
	if len(ls) != len(as) || len(ls) == 0 {
		t.Fatalf("streams live %+v replayed %+v", ls, as)
	}
	for i := range ls {
		if ls[i].Subject != as[i].Subject || ls[i].LastProcessed != as[i].LastProcessed || len(ls[i].Parked) != len(as[i].Parked) || len(ls[i].Missing) != len(as[i].Missing) {
			t.Fatalf("stream %d live %+v replayed %+v", i, ls[i], as[i])
		}
	}
}
