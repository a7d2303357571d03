package webhook

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// holdSlot opens a connection whose body (Content-Length n, a
// well-formed current signature) never arrives, and waits until it holds
// a slot.
func holdSlot(t *testing.T, h *Handler, addr string, n int) net.Conn {
	t.Helper()
	before := h.inFlight()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, slowHead(n)+"["); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.inFlight() == before {
		if time.Now().After(deadline) {
			t.Fatal("the slow delivery never took its slot")
		}
		time.Sleep(time.Millisecond)
	}
	return c
}

func rawPost(t *testing.T, addr, head string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// A stale, malformed or missing signature header is refused before a
// slot is taken: with every slot held, it still gets 401 at once, not
// 503.
func TestHeaderIsCheckedBeforeASlot(t *testing.T) {
	h := realRig(t)
	h.InFlight, h.SlotWait = 1, 5*time.Second
	addr := liveServer(t, h, nil)
	holdSlot(t, h, addr, 100)
	for name, sig := range map[string]string{
		"stale":     fmt.Sprintf("%s: t=1,v1=%s\r\n", events.SignatureHeader, strings.Repeat("0", 64)),
		"malformed": events.SignatureHeader + ": v1=zz\r\n",
		"missing":   "",
	} {
		start := time.Now()
		st, body := rawPost(t, addr, "POST /webhook HTTP/1.1\r\nHost: x\r\n"+sig+"Content-Length: 10000\r\n\r\n[")
		if st != http.StatusUnauthorized || !strings.Contains(body, events.NBSignature) {
			t.Fatalf("%s: %d %s", name, st, body)
		}
		if time.Since(start) > 4*time.Second {
			t.Fatalf("%s waited for a slot", name) // a bound far above the immediate answer
		}
	}
}

// One peer address cannot hold every slot.
func TestSlotsPerPeer(t *testing.T) {
	h := realRig(t)
	h.InFlight, h.PerPeer, h.SlotWait = 4, 1, 10*time.Millisecond
	addr := liveServer(t, h, nil)
	holdSlot(t, h, addr, 100)
	st, body := rawPost(t, addr, slowHead(2)+"[]")
	if st != http.StatusServiceUnavailable || !strings.Contains(body, "from this address") {
		t.Fatalf("a second body from the same address: %d %s", st, body)
	}
}

// The bytes of the bodies held at once are bounded.
func TestBodyBytesAreBounded(t *testing.T) {
	h := realRig(t)
	h.BodyBytes, h.SlotWait = 1000, 10*time.Millisecond
	addr := liveServer(t, h, nil)
	holdSlot(t, h, addr, 900)
	st, body := rawPost(t, addr, slowHead(500)+strings.Repeat(" ", 500))
	if st != http.StatusServiceUnavailable || !strings.Contains(body, "bytes this receiver keeps at once") {
		t.Fatalf("a body over the byte budget: %d %s", st, body)
	}
}

// A body that trickles in below the floor rate is cut once the grace
// has passed, long before the body timeout.
func TestTricklingBodyIsCut(t *testing.T) {
	h := realRig(t)
	h.BodyTimeout, h.Floor, h.Grace = time.Minute, 1000, 100*time.Millisecond
	addr := liveServer(t, h, nil)
	st, body := rawPost(t, addr, slowHead(10000)+"[")
	if st != http.StatusRequestTimeout || !strings.Contains(body, "BODY_TOO_SLOW") {
		t.Fatalf("a trickling body: %d %s", st, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.inFlight() != 0 { // given back once the handler returns, just after the answer
		if time.Now().After(deadline) {
			t.Fatal("the slot was not given back")
		}
		time.Sleep(time.Millisecond)
	}
}

// Keys are kept for the retention whatever their number (MaxKeys bounds
// only a receiver without a state), and forgotten after it.
func TestKeysAreKeptForTheRetention(t *testing.T) {
	r := newRig(t, "")
	rc, err := events.NewReceiver(events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, MaxKeys: 3,
		State: r.h.Receiver.StateStore(), Original: r.h.Store.Original})
	if err != nil {
		t.Fatal(err)
	}
	r.h.Receiver = rc
	for i := range 10 {
		if st, _, _ := r.post(ev{seq: int64(i + 1)}.json(), "", 0); st != http.StatusOK {
			t.Fatalf("seq %d: %d", i+1, st)
		}
	}
	r.clock.Advance(47 * time.Hour)
	st, _, a := r.post(ev{seq: 1}.json(), "", 0)
	if st != http.StatusOK || a.Result != events.ResultDuplicate || a.Events[0].Original == nil || a.Events[0].Original.Result != events.ResultACK {
		t.Fatalf("the first key, 47 h and 9 keys later: %d %+v", st, a)
	}
	r.clock.Advance(2 * time.Hour)
	r.post(ev{seq: 11}.json(), "", 0) // a delivery after the retention expires the old keys
	if st, _, a := r.post(ev{seq: 1}.json(), "", 0); st != http.StatusConflict || a.Code != string(events.CodeRegression) {
		t.Fatalf("after the retention the sequence still refuses it: %d %+v", st, a)
	}
}

// A restart goes on from the state file without replaying the captures
// it holds; without a state file (or with captures after it) it replays.
func TestRestartReplaysOnlyWhatTheStateLacks(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	for i := range 5 {
		r.post(ev{seq: int64(i + 1)}.json(), "", 0)
	}
	r.srv.Close()
	r.h.Close()
	r2 := newRig(t, dir)
	if r2.h.Replayed != 0 {
		t.Fatalf("%d captures replayed over a state that holds them", r2.h.Replayed)
	}
	if st, _, a := r2.post(ev{seq: 5}.json(), "", 0); st != http.StatusOK || a.Result != events.ResultDuplicate {
		t.Fatalf("after the restart: %d %+v", st, a)
	}
	// A capture committed after the state's last (a crash between the
	// two) is replayed.
	late := events.Delivery{Header: http.Header{HeaderReceived: {r2.clock.Now().Format(time.RFC3339Nano)}}, Body: ev{seq: 6}.json()}
	if _, err := r2.h.Store.Commit(late); err != nil {
		t.Fatal(err)
	}
	r2.srv.Close()
	r2.h.Close()
	r3 := newRig(t, dir)
	if r3.h.Replayed != 1 {
		t.Fatalf("%d captures replayed, want the 1 after the state", r3.h.Replayed)
	}
	r3.srv.Close()
	r3.h.Close()
	if err := os.Remove(filepath.Join(dir, StateFile)); err != nil {
		t.Fatal(err)
	}
	r4 := newRig(t, dir)
	if r4.h.Replayed != 7 {
		t.Fatalf("without a state file %d captures replayed, want all 7", r4.h.Replayed)
	}
	if st, _, a := r4.post(ev{seq: 6}.json(), "", 0); st != http.StatusOK || a.Result != events.ResultDuplicate {
		t.Fatalf("after the rebuild: %d %+v", st, a)
	}
}

// A foreign file named like a capture is neither replayed nor
// overwritten, and the numbering goes on after the receiver's own.
func TestForeignCaptureNames(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	for i := range 3 {
		r.post(ev{seq: int64(i + 1)}.json(), "", 0)
	}
	r.srv.Close()
	r.h.Close()
	foreign := []byte("POST /webhook HTTP/1.1\r\nContent-Length: 2\r\n\r\n[]")
	for _, n := range []string{"999999999999.http", "000000000004.http"} {
		if err := os.WriteFile(filepath.Join(dir, n), foreign, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var notes []string
	h, _, err := Open(Config{Dir: dir, Receiver: events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}},
		OnNote: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	if len(notes) != 1 || !strings.Contains(notes[0], "999999999999.http") || !strings.Contains(notes[0], "did not write") {
		t.Fatalf("notes %q", notes)
	}
	r2 := newRig(t, dir)
	st, _, a := r2.post(ev{seq: 4}.json(), "", 0)
	if st != http.StatusOK || a.Delivery != "000000000005.http" {
		t.Fatalf("the next capture: %d %q", st, a.Delivery)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "000000000004.http")); string(b) != string(foreign) {
		t.Fatal("a foreign file was overwritten")
	}
	r2.srv.Close()
	r2.h.Close()
	r3 := newRig(t, dir)
	if st, _, a := r3.post(ev{seq: 4}.json(), "", 0); st != http.StatusOK || a.Result != events.ResultDuplicate {
		t.Fatalf("after the restart, the event is known: %d %+v", st, a)
	}
}

func signedEvent(t *testing.T, e ev, key any, alg jose.SignatureAlgorithm, kid string) []byte {
	t.Helper()
	raw := e.json()
	var sig string
	var err error
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		sig, err = events.SignJWS(raw, k, alg, kid)
	case ed25519.PrivateKey:
		sig, err = events.SignJWS(raw, k, alg, kid)
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	m["signature"] = sig
	out, _ := json.Marshal(m)
	return out
}

func writeJWKS(t *testing.T, path string, keys ...jose.JSONWebKey) {
	t.Helper()
	b, _ := json.Marshal(jose.JSONWebKeySet{Keys: keys})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A live receiver given the sender's JWKS verifies envelope.signature
// before the ACK: a tampered or forged event, or one without a
// signature, is rejected with a finding.
func TestListenVerifiesEnvelopeSignature(t *testing.T) {
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	_, forger, _ := ed25519.GenerateKey(rand.Reader)
	path := filepath.Join(t.TempDir(), "jwks.json")
	writeJWKS(t, path, jose.JSONWebKey{Key: &ecKey.PublicKey, KeyID: "ec1", Algorithm: "ES256"},
		jose.JSONWebKey{Key: edKey.Public(), KeyID: "ed1", Algorithm: "EdDSA"})
	var keys events.KeySets
	if err := keys.AddSpec(senderGLN+"="+path, nil); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, "")
	rc, err := events.NewReceiver(events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, KeySets: keys.For,
		State: r.h.Receiver.StateStore(), Original: r.h.Store.Original})
	if err != nil {
		t.Fatal(err)
	}
	r.h.Receiver = rc
	good := signedEvent(t, ev{seq: 1}, ecKey, jose.ES256, "ec1")
	if st, _, a := r.post(good, "", 0); st != http.StatusOK || a.Result != events.ResultACK || !hasFinding(a, events.CodeJWSValid) {
		t.Fatalf("ES256-signed: %d %+v", st, a)
	}
	tampered := []byte(strings.Replace(string(signedEvent(t, ev{seq: 2}, ecKey, jose.ES256, "ec1")), `"status":"ok"`, `"status":"XX"`, 1))
	if st, _, a := r.post(tampered, "", 0); st != http.StatusBadRequest || a.Result != events.ResultRejected || !hasFinding(a, events.CodeJWSInvalid) {
		t.Fatalf("tampered ES256: %d %+v", st, a)
	}
	forged := signedEvent(t, ev{seq: 2, n: 2}, forger, jose.EdDSA, "ed1")
	if st, _, a := r.post(forged, "", 0); st != http.StatusBadRequest || !hasFinding(a, events.CodeJWSInvalid) {
		t.Fatalf("forged EdDSA: %d %+v", st, a)
	}
	if st, _, a := r.post(ev{seq: 2, n: 3}.json(), "", 0); st != http.StatusBadRequest || !hasFinding(a, events.CodeJWSMissing) {
		t.Fatalf("unsigned: %d %+v", st, a)
	}
	if st, _, a := r.post(signedEvent(t, ev{seq: 2, n: 4}, edKey, jose.EdDSA, "ed1"), "", 0); st != http.StatusOK || a.Result != events.ResultACK {
		t.Fatalf("EdDSA-signed: %d %+v", st, a)
	}
}
