package events

import (
	"net/http"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// blockingCommitter holds CommitAll (the fsyncs of a batch) until
// release is closed, after telling entered.
type blockingCommitter struct {
	fakeCommitter
	entered, release chan struct{}
}

func (b *blockingCommitter) CommitAll(ds []Delivery, at []int, names []string) error {
	close(b.entered)
	<-b.release
	return b.fakeCommitter.CommitAll(ds, at, names)
}

// The checks made before a body is read and NoteSenders after an answer
// do not wait for the batch being stored: when they did, every delivery
// queued behind the commit of the batch before it, and batches stayed
// small (issue 24 §3b).
func TestChecksBeforeTheBodyDoNotWaitForACommit(t *testing.T) {
	r, err := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("k")}, RateLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1741775460, 0)
	bc := &blockingCommitter{entered: make(chan struct{}), release: make(chan struct{})}
	decided := make(chan []Answer, 1)
	go func() {
		decided <- r.DeliverAll([]Arrival{arrival(seqEvent(1, "1"), now), arrival(seqEvent(2, "2"), now)}, bc)
	}()
	<-bc.entered
	checked := make(chan [2]bool, 1)
	go func() {
		h := http.Header{}
		h.Set(SignatureHeader, Sign(secret.New("k"), now.Unix(), []byte("x")))
		_, headerOK := r.CheckHeader(h, now)
		r.NoteSenders("10.0.0.1", []string{"4012345000009"})
		// Two events of the sender are counted (the batch being stored):
		// the limit of 2 is used up, the peer is refused before its body.
		_, rateOK := r.CheckPeerRate("10.0.0.1", now)
		checked <- [2]bool{headerOK, rateOK}
	}()
	var got [2]bool
	select {
	case got = <-checked:
	case <-time.After(10 * time.Second): // bounded: fails instead of hanging
		close(bc.release)
		<-decided
		t.Fatal("CheckHeader, NoteSenders or CheckPeerRate waited for the batch being stored")
	}
	close(bc.release)
	out := <-decided
	if !got[0] || got[1] {
		t.Fatalf("header ok %v (want true), peer rate ok %v (want false: 2 events of 2 counted)", got[0], got[1])
	}
	for i, a := range out {
		if a.Result != ResultACK {
			t.Fatalf("answer %d: %s, want ACK", i, a.Result)
		}
	}
}
