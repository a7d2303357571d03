package webhook

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

func TestACKIsCapturedInspectableAndHoldsNoSecret(t *testing.T) {
	r := newRig(t, "")
	body := ev{seq: 1}.json()
	st, _, a := r.post(body, "", 0)
	if st != http.StatusOK || a.Result != events.ResultACK || a.Delivery == "" || len(a.Events) != 1 || a.Events[0].Outcome != events.OutcomeProcessed {
		t.Fatalf("status %d answer %+v", st, a)
	}
	ds, err := events.ReadPath(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || !bytes.Equal(ds[0].Body, body) || ds[0].Header.Get(events.SignatureHeader) == "" {
		t.Fatalf("capture %+v", ds)
	}
	// The capture is what event inspect reads: with the secret and the
	// captured Date as the clock, the signature verifies.
	rep := events.Inspect(ds, events.Options{Secrets: []events.Secret{secret.New(canarySecret)}, StartAtOne: true})
	if rep.Deliveries[0].Signature == nil || !rep.Deliveries[0].Signature.Valid || rep.Deliveries[0].Clock != "date-header" {
		t.Fatalf("inspect of the capture: %+v", rep.Deliveries[0])
	}
	walkNoSecret(t, r.dir)
}

func walkNoSecret(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(canarySecret)) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}

func TestSignatureRejectedChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		sec  string
		t    int64
	}{
		{"wrong secret", "whsec_other", 0},
		{"stale timestamp", "", time.Date(2026, 3, 12, 10, 31, 0, 0, time.UTC).Unix() - 301},
		{"future timestamp", "", time.Date(2026, 3, 12, 10, 31, 0, 0, time.UTC).Unix() + 301},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "")
			body := ev{seq: 1}.json()
			st, _, a := r.post(body, tc.sec, tc.t)
			if st != http.StatusUnauthorized || a.Code != events.NBSignature || !hasFinding(a, events.CodeSignatureInvalid) {
				t.Fatalf("status %d answer %+v", st, a)
			}
			if names, _ := r.h.Store.Names(); len(names) != 0 {
				t.Fatalf("a rejected delivery was committed: %v", names)
			}
			refused, _ := os.ReadDir(filepath.Join(r.dir, RefusedDir))
			if len(refused) != 1 {
				t.Fatalf("refused/ holds %d files, want 1", len(refused))
			}
			// Nothing was remembered: the same event signed right is new.
			st, _, a = r.post(body, "", 0)
			if st != http.StatusOK || a.Result != events.ResultACK {
				t.Fatalf("resend: status %d answer %+v", st, a)
			}
		})
	}
}

func TestSignatureMissing(t *testing.T) {
	r := newRig(t, "")
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL, bytes.NewReader(ev{seq: 1}.json()))
	st, _, a := r.do(req)
	if st != http.StatusUnauthorized || !hasFinding(a, events.CodeSignatureMissing) {
		t.Fatalf("status %d answer %+v", st, a)
	}
}

func TestEnvelopeErrorRejectsTheEvent(t *testing.T) {
	r := newRig(t, "")
	body := bytes.Replace(ev{seq: 1}.json(), []byte(`"specversion":"2.0"`), []byte(`"specversion":"1.0"`), 1)
	st, _, a := r.post(body, "", 0)
	if st != http.StatusBadRequest || a.Result != events.ResultRejected || a.Code != string(events.CodeSpecVersion) {
		t.Fatalf("status %d answer %+v", st, a)
	}
	// The rules: fix and send with a new key and the same sequence.
	st, _, a = r.post(ev{seq: 1, n: 2}.json(), "", 0)
	if st != http.StatusOK || a.Result != events.ResultACK {
		t.Fatalf("fixed: status %d answer %+v", st, a)
	}
}

func TestDuplicateAnswersTheOriginalResult(t *testing.T) {
	r := newRig(t, "")
	body := ev{seq: 1}.json()
	_, _, first := r.post(body, "", 0)
	st, _, a := r.post(body, "", 0)
	if st != http.StatusOK || a.Result != events.ResultDuplicate || a.Code != events.NBDuplicate || !hasFinding(a, events.CodeDuplicate) {
		t.Fatalf("status %d answer %+v", st, a)
	}
	o := a.Events[0].Original
	if o == nil || o.Result != events.ResultACK || o.Delivery != first.Delivery || o.Event != first.Events[0].Index {
		t.Fatalf("original %+v, first %+v", o, first)
	}
	// Same key, changed body: the change is dropped, and the members
	// that differ are named (the original is read back from its capture).
	changed := ev{seq: 1, data: map[string]any{"status": "changed"}}.json()
	_, _, a = r.post(changed, "", 0)
	if a.Result != events.ResultDuplicate || !hasFinding(a, events.CodeDuplicateConflict) || !strings.Contains(a.Findings[0].Message, "data differ") {
		t.Fatalf("changed repeat: %+v", a)
	}
}

func TestOutOfOrderIsParkedAndReleased(t *testing.T) {
	r := newRig(t, "")
	st, _, a := r.post(ev{seq: 2}.json(), "", 0)
	if st != http.StatusAccepted || a.Result != events.ResultParked || a.Code != events.NBParked {
		t.Fatalf("seq 2 first: status %d answer %+v", st, a)
	}
	if len(a.Streams) != 1 || len(a.Streams[0].Parked) != 1 || a.Streams[0].Parked[0] != 2 || strings.Join(a.Streams[0].Missing, ",") != "1" {
		t.Fatalf("streams %+v", a.Streams)
	}
	parked := a
	st, _, a = r.post(ev{seq: 1}.json(), "", 0)
	if st != http.StatusOK || a.Result != events.ResultACK || len(a.Released) != 1 || a.Released[0].Event != parked.Events[0].Index || a.Released[0].Delivery != parked.Delivery {
		t.Fatalf("seq 1: status %d answer %+v", st, a)
	}
	if !hasFinding(a, events.CodeOutOfOrder) || len(a.Streams[0].Parked) != 0 || a.Streams[0].LastProcessed != 2 {
		t.Fatalf("after the gap filled: %+v", a)
	}
	// A duplicate of the parked-then-released event answers released.
	_, _, a = r.post(ev{seq: 2}.json(), "", 0)
	if a.Events[0].Original == nil || a.Events[0].Original.Outcome != events.OutcomeReleased {
		t.Fatalf("duplicate of the released event: %+v", a.Events[0])
	}
}

func TestLowerSequenceIsRejected(t *testing.T) {
	r := newRig(t, "")
	r.post(ev{seq: 1}.json(), "", 0)
	r.post(ev{seq: 2}.json(), "", 0)
	st, _, a := r.post(ev{seq: 1, n: 2}.json(), "", 0)
	if st != http.StatusConflict || a.Result != events.ResultRejected || a.Code != string(events.CodeRegression) {
		t.Fatalf("status %d answer %+v", st, a)
	}
}

func TestHeartbeatRevealsTheGap(t *testing.T) {
	r := newRig(t, "")
	r.post(ev{seq: 1}.json(), "", 0)
	st, _, a := r.post(heartbeat(1, map[string]int64{"PO-4711": 3}).json(), "", 0)
	if st != http.StatusOK || !hasFinding(a, events.CodeSequenceMissing) {
		t.Fatalf("status %d answer %+v", st, a)
	}
	var po events.Stream
	for _, s := range a.Streams {
		if s.Subject == "PO-4711" {
			po = s
		}
	}
	if strings.Join(po.Missing, ",") != "2-3" || po.Heartbeat != 3 {
		t.Fatalf("stream %+v", po)
	}
	// The replay fills it.
	r.post(ev{seq: 2}.json(), "", 0)
	_, _, a = r.post(ev{seq: 3}.json(), "", 0)
	if a.Result != events.ResultACK || len(a.Streams[0].Missing) != 0 || hasFinding(a, events.CodeSequenceMissing) {
		t.Fatalf("after the replay: %+v", a)
	}
}

func TestRateLimitAnswersRetryAfter(t *testing.T) {
	r := newRig(t, "")
	var evs []ev
	for i := range 60 {
		evs = append(evs, ev{subject: "burst", seq: int64(i + 1)})
	}
	if st, _, a := r.post(batch(evs[:50]...), "", 0); st != http.StatusOK {
		t.Fatalf("first 50: %d %+v", st, a)
	}
	if st, _, a := r.post(batch(evs[50:]...), "", 0); st != http.StatusOK {
		t.Fatalf("next 10: %d %+v", st, a)
	}
	more := []ev{}
	for i := 60; i < 100; i++ {
		more = append(more, ev{subject: "burst", seq: int64(i + 1)})
	}
	if st, _, _ := r.post(batch(more...), "", 0); st != http.StatusOK {
		t.Fatalf("events 61-100: %d", st)
	}
	over := ev{subject: "burst", seq: 101}.json()
	st, h, a := r.post(over, "", 0)
	if st != http.StatusTooManyRequests || a.Code != events.NBRateLimit || h.Get("Retry-After") != "1" || a.Result != events.ResultRetry {
		t.Fatalf("event 101: status %d Retry-After %q answer %+v", st, h.Get("Retry-After"), a)
	}
	if names, _ := r.h.Store.Names(); len(names) != 3 {
		t.Fatalf("the refused delivery was committed: %v", names)
	}
	r.clock.Advance(time.Second)
	if st, _, a := r.post(over, "", 0); st != http.StatusOK || a.Result != events.ResultACK {
		t.Fatalf("after Retry-After: %d %+v", st, a)
	}
}

func TestSizeLimits(t *testing.T) {
	r := newRig(t, "")
	big := ev{seq: 1, data: map[string]any{"pad": strings.Repeat("x", events.MaxEventBytes)}}.json()
	st, _, a := r.post(big, "", 0)
	if st != http.StatusRequestEntityTooLarge || a.Code != string(events.CodeEventTooLarge) {
		t.Fatalf("event over 1 MiB: %d %+v", st, a)
	}
	huge := make([]byte, MaxBody+1)
	huge[0] = '['
	st, _, a = r.post(huge, "", 0)
	if st != http.StatusRequestEntityTooLarge || a.Code != string(events.CodeBatchTooLarge) {
		t.Fatalf("body over 10 MiB: %d %+v", st, a)
	}
	// The listener goes on.
	if st, _, _ := r.post(ev{seq: 1, n: 2}.json(), "", 0); st != http.StatusOK {
		t.Fatalf("after: %d", st)
	}
}

func TestHostileBodies(t *testing.T) {
	r := newRig(t, "")
	bomb := []byte(`{"a":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}`)
	for _, tc := range []struct {
		name string
		body []byte
		code events.Code
	}{
		{"invalid UTF-8", bytes.Replace(ev{seq: 1}.json(), []byte("ok"), []byte("o\xffk"), 1), events.CodeInvalidUTF8},
		{"JSON bomb", bomb, events.CodeNotObject},
		{"not JSON", []byte("hello"), events.CodeUnreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, a := r.post(tc.body, "", 0)
			if st != http.StatusBadRequest || !hasFinding(a, tc.code) {
				t.Fatalf("status %d codes %v", st, codes(a))
			}
		})
	}
	if st, _, _ := r.post(ev{seq: 1}.json(), "", 0); st != http.StatusOK {
		t.Fatalf("after: %d", st)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	r := newRig(t, "")
	req, _ := http.NewRequest(http.MethodGet, r.srv.URL, nil)
	if st, h, _ := r.do(req); st != http.StatusMethodNotAllowed || h.Get("Allow") != "POST" {
		t.Fatalf("GET: %d", st)
	}
}

func TestRestartGoesOnFromTheCaptures(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	r.post(ev{seq: 1}.json(), "", 0)
	r.post(ev{seq: 3}.json(), "", 0) // parked
	r.srv.Close()

	r2 := newRig(t, dir)
	if st, _, a := r2.post(ev{seq: 1}.json(), "", 0); st != http.StatusOK || a.Result != events.ResultDuplicate {
		t.Fatalf("key processed before the restart: %d %+v", st, a)
	}
	if st, _, a := r2.post(ev{seq: 1, n: 5}.json(), "", 0); st != http.StatusConflict || a.Code != string(events.CodeRegression) {
		t.Fatalf("sequence processed before the restart: %d %+v", st, a)
	}
	st, _, a := r2.post(ev{seq: 2}.json(), "", 0)
	if st != http.StatusOK || len(a.Released) != 1 || a.Streams[0].LastProcessed != 3 {
		t.Fatalf("the gap filled after the restart releases the event parked before: %d %+v", st, a)
	}
	// The capture names go on after the old ones.
	names, _ := r2.h.Store.Names()
	if len(names) != 5 || names[4] != "000000000005.http" {
		t.Fatalf("names %v", names)
	}
}

func TestKeysAreBounded(t *testing.T) {
	if rc, err := events.NewReceiver(events.ReceiverOptions{MaxKeys: 3}); err == nil || rc != nil {
		t.Fatal("a receiver without a secret was made")
	}
	r := newRig(t, "")
	rc, err := events.NewReceiver(events.ReceiverOptions{Secrets: []events.Secret{secret.New(canarySecret)}, MaxKeys: 3})
	if err != nil {
		t.Fatal(err)
	}
	r.h.Receiver = rc
	for i := range 10 {
		r.post(ev{seq: int64(i + 1)}.json(), "", 0)
	}
	if _, _, keys := r.h.Receiver.Counts(); keys != 3 {
		t.Fatalf("%d keys remembered, want the bound 3", keys)
	}
	// A forgotten key is still not processed twice: its sequence is
	// below the last processed one.
	if st, _, a := r.post(ev{seq: 1}.json(), "", 0); st != http.StatusConflict || a.Code != string(events.CodeRegression) {
		t.Fatalf("forgotten key: %d %+v", st, a)
	}
}
