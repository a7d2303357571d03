package events

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// fakeCommitter records the batches it is given; fail makes the next
// commit fail.
type fakeCommitter struct {
	next    int
	batches [][]string
	at      [][]int
	fail    bool
}

func (f *fakeCommitter) Names(n int) ([]string, error) {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("d%d", f.next+i+1)
	}
	return out, nil
}

func (f *fakeCommitter) CommitAll(ds []Delivery, at []int, names []string) error {
	if f.fail {
		f.fail = false
		return errors.New("disk full")
	}
	f.batches = append(f.batches, append([]string(nil), names...))
	f.at = append(f.at, append([]int(nil), at...))
	f.next += len(names)
	return nil
}

func seqEvent(seq int, key string) []byte {
	b, _ := json.Marshal(map[string]any{"specversion": "2.0", "id": "e-" + key, "type": "nutrab2b.orders.confirmed.v2", "source": "/t",
		"subject": "PO-1", "time": "2026-03-12T10:30:00Z", "sender": "4012345000009", "receiver": "4098765000003",
		"correlationid": "c", "idempotencykey": "4012345000009:PO-1:confirmed:" + key, "sequence": seq, "env": "test", "data": map[string]any{}})
	return b
}

func arrival(body []byte, now time.Time) Arrival {
	h := http.Header{}
	h.Set(SignatureHeader, Sign(secret.New("k"), now.Unix(), body))
	return Arrival{Delivery: Delivery{Header: h, Body: body}, Now: now}
}

// Queued deliveries are decided in their order and stored with one
// commit; a failed commit answers every one of them RETRY and changes
// nothing, so their resend is processed as new.
func TestDeliverAllCommitsABatchOnceInOrder(t *testing.T) {
	r, err := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("k")}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1741775460, 0)
	fc := &fakeCommitter{}
	in := []Arrival{arrival(seqEvent(2, "2"), now), arrival([]byte(`{}`), now), arrival(seqEvent(1, "1"), now), arrival(seqEvent(1, "1"), now)}
	in[1].Delivery.Header.Set(SignatureHeader, "t=1,v1=00") // refused before the commit: takes no name
	out := r.DeliverAll(in, fc)
	if len(fc.batches) != 1 || len(fc.batches[0]) != 3 {
		t.Fatalf("commits %v, want one of 3", fc.batches)
	}
	// The committer is told which arrivals it stores (a committer that
	// began writing them before the decisions finds its work by it).
	if fmt.Sprint(fc.at) != "[[0 2 3]]" {
		t.Fatalf("the arrivals committed: %v, want [[0 2 3]]", fc.at)
	}
	want := []string{ResultParked, ResultRejected, ResultACK, ResultDuplicate}
	for i, a := range out {
		if a.Result != want[i] {
			t.Fatalf("answer %d: %s, want %s (%+v)", i, a.Result, want[i], a)
		}
	}
	if out[1].Status != http.StatusUnauthorized || out[1].Committed {
		t.Fatalf("the badly signed one: %+v", out[1])
	}
	if out[0].Delivery != "d1" || out[2].Delivery != "d2" || out[3].Delivery != "d3" || len(out[2].Released) != 1 {
		t.Fatalf("names and release: %q %q %q %+v", out[0].Delivery, out[2].Delivery, out[3].Delivery, out[2].Released)
	}
	// A failed commit: all RETRY, nothing remembered.
	fc.fail = true
	out = r.DeliverAll([]Arrival{arrival(seqEvent(3, "3"), now), arrival(seqEvent(4, "4"), now)}, fc)
	for i, a := range out {
		if a.Status != http.StatusInternalServerError || a.Result != ResultRetry || a.Committed {
			t.Fatalf("failed commit, answer %d: %+v", i, a)
		}
	}
	if d, e := r.Delivered(); d != 3 || e != 3 {
		t.Fatalf("counts after the failed commit: %d deliveries %d events", d, e)
	}
	out = r.DeliverAll([]Arrival{arrival(seqEvent(3, "3"), now)}, fc)
	if out[0].Result != ResultACK || out[0].Delivery != "d4" {
		t.Fatalf("the resend after the failed commit: %+v", out[0])
	}
}

// A JWKS file that changes is used without a restart.
func TestKeySourceReloadsAChangedFile(t *testing.T) {
	k1, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	path := filepath.Join(t.TempDir(), "jwks.json")
	write := func(k *ecdsa.PrivateKey, mtime time.Time) {
		b, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "k", Algorithm: "ES256"}}})
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Unix(1741775460, 0)
	write(k1, t0)
	ks, err := NewKeySource(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now() // the source's first read was at the real time
	ks.now = func() time.Time { return clock }
	ev := seqEvent(1, "1")
	sign := func(k *ecdsa.PrivateKey) []byte {
		sig, err := SignJWS(ev, k, jose.ES256, "k")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(ev, &m)
		m["signature"] = sig
		b, _ := json.Marshal(m)
		return b
	}
	if _, err := VerifyJWS(sign(k1), ks.JWKS()); err != nil {
		t.Fatalf("the first key: %v", err)
	}
	write(k2, t0.Add(time.Minute))
	clock = clock.Add(2 * keyFileCheck)
	if _, err := VerifyJWS(sign(k2), ks.JWKS()); err != nil {
		t.Fatalf("the rotated key after the file changed: %v", err)
	}
	if _, err := VerifyJWS(sign(k1), ks.JWKS()); err == nil {
		t.Fatal("the retired key still verifies")
	}
	// A broken file keeps the last good set and says why.
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(2 * keyFileCheck)
	if _, err := VerifyJWS(sign(k2), ks.JWKS()); err != nil || ks.Err() == nil {
		t.Fatalf("after a broken rewrite: verify %v, Err %v", err, ks.Err())
	}
}

func TestKeySetsSpecs(t *testing.T) {
	var k KeySets
	if err := k.AddSpec("1234567890123=/nonexistent", nil); err == nil || !errors.Is(err, ErrKeySpec) {
		t.Fatalf("a bad GLN: %v", err)
	}
	if err := k.AddSpec("http://example.com/jwks.json", nil); err == nil {
		t.Fatal("plain http off loopback was accepted")
	}
	if err := k.AddSpec("/nonexistent/jwks.json", nil); err == nil {
		t.Fatal("a missing file was accepted")
	}
}

// Streams and keys live in the StateStore, not in the Receiver's
// memory: after a batch the Receiver holds none of them.
func TestReceiverHoldsNoStreamsBetweenBatches(t *testing.T) {
	r, err := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("k")}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1741775460, 0)
	fc := &fakeCommitter{}
	for i := range 50 {
		body, _ := json.Marshal(map[string]any{"specversion": "2.0", "id": fmt.Sprintf("e-%d", i), "type": "nutrab2b.orders.confirmed.v2", "source": "/t",
			"subject": fmt.Sprintf("PO-%d", i), "time": "2026-03-12T10:30:00Z", "sender": "4012345000009", "receiver": "4098765000003",
			"correlationid": "c", "idempotencykey": fmt.Sprintf("4012345000009:PO-%d:confirmed:1", i), "sequence": 1, "env": "test", "data": map[string]any{}})
		if a := r.DeliverAll([]Arrival{arrival(body, now)}, fc); a[0].Result != ResultACK {
			t.Fatalf("delivery %d: %+v", i, a[0])
		}
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(r.l.streams) != 0 || len(r.l.keys) != 0 || len(r.l.ids) != 0 {
		t.Fatalf("in memory after the batches: %d streams, %d keys, %d ids", len(r.l.streams), len(r.l.keys), len(r.l.ids))
	}
	if n, _ := r.st.Count(StateStream); n != 50 {
		t.Fatalf("%d streams stored, want 50", n)
	}
	if got := len(r.Streams()); got != 50 {
		t.Fatalf("Streams() has %d", got)
	}
}

// Authentic agrees with the signature check DeliverAll begins with: a
// delivery it calls authentic passes that check, one it does not is
// refused with 401 NB-E008; it changes nothing.
func TestAuthenticIsTheSignatureCheckOfDeliverAll(t *testing.T) {
	r, err := NewReceiver(ReceiverOptions{Secrets: []Secret{secret.New("k")}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1741775460, 0)
	good := arrival(seqEvent(1, "1"), now)
	wrongKey := arrival(seqEvent(2, "2"), now)
	wrongKey.Delivery.Header.Set(SignatureHeader, Sign(secret.New("not-k"), now.Unix(), wrongKey.Delivery.Body))
	stale := arrival(seqEvent(3, "3"), now)
	stale.Now = now.Add(time.Hour)
	unsigned := Arrival{Delivery: Delivery{Header: http.Header{}, Body: seqEvent(4, "4")}, Now: now}
	in := []Arrival{good, wrongKey, stale, unsigned}
	want := []bool{true, false, false, false}
	for i, a := range in {
		if got := r.Authentic(a.Delivery, a.Now); got != want[i] {
			t.Fatalf("arrival %d: authentic %v, want %v", i, got, want[i])
		}
	}
	if d, _ := r.Delivered(); d != 0 {
		t.Fatalf("Authentic changed the state: %d deliveries", d)
	}
	out := r.DeliverAll(in, &fakeCommitter{})
	for i, a := range out {
		refused := a.Status == http.StatusUnauthorized && !a.Committed
		if refused == want[i] {
			t.Fatalf("arrival %d: authentic %v but answered %d committed %v", i, want[i], a.Status, a.Committed)
		}
	}
}
