package orders

import (
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

func rec(key string, n int, sha string, out spool.Outcome) spool.UploadRecord {
	return spool.UploadRecord{ConnectionID: "c", SenderID: "4012345000009", BusinessID: "PO-1", Key: key, N: n, SHA256: sha, Outcome: out, HTTPStatus: 202}
}

func TestUploadPlanKeysAndAnswers(t *testing.T) {
	a := rec("4012345000009:PO-1:orders:1", 1, "aa", spool.OutcomeAccepted)
	b := rec("4012345000009:PO-1:orders:2", 2, "bb", spool.OutcomeAccepted)
	failed := rec("4012345000009:PO-1:orders:3", 3, "cc", spool.OutcomeFailed)
	failed.HTTPStatus, failed.ErrorCode = 400, "ERR_B2B_EXCHANGE_INVALID_REQUEST"
	unclear := rec("4012345000009:PO-1:orders:4", 4, "dd", spool.OutcomeUnclear)
	conflict := rec("4012345000009:PO-1:orders:5", 5, "ee", spool.OutcomeConflict)
	rejected := rec("4012345000009:PO-1:orders:6", 6, "ff", spool.OutcomeAccepted)
	hist := []spool.UploadRecord{a, b, failed, unclear, conflict, rejected}
	in := UploadInput{History: hist, Rejected: func(sha string) bool { return sha == "ff" }}

	replay := UploadPlan([]spool.UploadRecord{a, b, failed, unclear, rejected}, in, Replay)
	want := []struct{ action, key, expect string }{
		{"replay", a.Key, Expect200Replay},
		{"replay", b.Key, Expect200Replay},
		{"retry", failed.Key, Expect202},
		{"retry", unclear.Key, ExpectRetry},
		{"refused", "", ""},
	}
	for i, w := range want {
		s := replay[i]
		if s.Action != w.action || s.Key != w.key || s.Expect != w.expect {
			t.Errorf("replay step %d = %+v, want %+v", i, s, w)
		}
	}
	if !strings.Contains(replay[2].Why, "HTTP 400") || !strings.Contains(replay[4].Why, "fix the file") {
		t.Errorf("why: %q / %q", replay[2].Why, replay[4].Why)
	}

	// Sent anew: accepted bytes get consecutive new numbers across the
	// batch; the 409 one gets a new number too.
	resend := UploadPlan([]spool.UploadRecord{a, b, conflict}, in, Resend)
	keys := []string{resend[0].Key, resend[1].Key, resend[2].Key}
	if strings.Join(keys, " ") != "4012345000009:PO-1:orders:7 4012345000009:PO-1:orders:8 4012345000009:PO-1:orders:9" {
		t.Fatalf("keys %q", keys)
	}
	for _, s := range resend {
		if s.Action != "resend" || s.Expect != Expect202 {
			t.Errorf("resend step %+v", s)
		}
	}
	pv := UploadPreview(resend)
	if !strings.HasPrefix(pv[0], "send 3 of 3") || !strings.Contains(pv[1], "expect 202") {
		t.Fatalf("preview %q", pv)
	}
}

func TestUploadPlanOperatorKeysAndLostBytes(t *testing.T) {
	mine := rec("my-key", 0, "aa", spool.OutcomeAccepted)
	other := rec("my-key", 0, "bb", spool.OutcomeFailed)
	hist := []spool.UploadRecord{mine, other}
	steps := UploadPlan([]spool.UploadRecord{mine, other}, UploadInput{History: hist}, Replay)
	if steps[0].Expect != Expect200Replay || steps[0].Key != "my-key" {
		t.Errorf("own key accepted: %+v", steps[0])
	}
	if steps[1].Expect != Expect409 || !strings.Contains(steps[1].Why, "accepted for other bytes") {
		t.Errorf("own key bound to other bytes: %+v", steps[1])
	}
	lost := UploadPlan([]spool.UploadRecord{mine}, UploadInput{History: hist, Kept: func(spool.UploadRecord) bool { return false }}, Replay)
	if lost[0].Action != "refused" || !strings.Contains(lost[0].Why, "no longer kept") {
		t.Errorf("lost bytes: %+v", lost[0])
	}
	if pv := UploadPreview(lost); !strings.Contains(pv[1], "refused") || !strings.HasPrefix(pv[0], "send 0 of 1") {
		t.Errorf("preview %q", pv)
	}
}
