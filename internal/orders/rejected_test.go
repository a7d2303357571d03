package orders

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

const resendConn = "conn-resend"

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// storeDelivery stores data as a verified delivery of the test connection.
func storeDelivery(t *testing.T, st *spool.Store, id, typ string, data []byte, at time.Time) {
	t.Helper()
	w, err := st.Begin(resendConn, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(spool.Meta{ConnectionID: resendConn, DeliveryAttemptID: id, MessageType: typ, CreatedAt: at,
		Size: int64(len(data)), SHA256: sum(data), ReceivedAt: at}); err != nil {
		t.Fatal(err)
	}
}

// rejectedStore holds the shipped rejectable ORDERS as an accepted upload
// (up-1) and, when answer is given, that answer as a stored delivery.
func rejectedStore(t *testing.T, answer string) (*spool.Store, spool.UploadRecord) {
	t.Helper()
	st, err := spool.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(rejectable)
	if err != nil {
		t.Fatal(err)
	}
	rec := spool.UploadRecord{Time: t0, ConnectionID: resendConn, File: rejectable, Size: int64(len(data)), SHA256: sum(data),
		Key: "4012345000009:PO-4720:orders:1", N: 1, SenderID: "4012345000009", BusinessID: "PO-4720",
		RecipientID: "4098765000003", ControlRef: "ICR0042", DocNumbers: []string{"PO-4720"},
		Outcome: spool.OutcomeAccepted, HTTPStatus: 202, UploadID: "up-1", Status: "received"}
	if err := st.AppendUpload(rec); err != nil {
		t.Fatal(err)
	}
	if answer != "" {
		b, err := os.ReadFile(answer)
		if err != nil {
			t.Fatal(err)
		}
		storeDelivery(t, st, "dlv-contrl-1", "CONTRL", b, t0.Add(time.Minute))
	}
	return st, rec
}

func linked(t *testing.T, st *spool.Store) *Linked {
	t.Helper()
	l, err := LoadLinked(t.Context(), st, resendConn, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestGuardRefusesBytesOfARejectedUpload(t *testing.T) {
	st, rec := rejectedStore(t, rejectsCONTRL)
	l := linked(t, st)
	rs := Rejections(l)
	if len(rs) != 1 || rs[0].Upload.UploadID != "up-1" || rs[0].Answer.Type != "CONTRL" || rs[0].Answer.ID != "dlv-contrl-1" {
		t.Fatalf("rejections = %+v", rs)
	}
	err := Guard(l, strings.ToUpper(rec.SHA256), nil, false)
	var se *SameAsRejectedError
	if !errors.Is(err, ErrSameAsRejected) || !errors.As(err, &se) {
		t.Fatalf("Guard = %v, want ErrSameAsRejected", err)
	}
	for _, want := range []string{": upload up-1 (key " + rec.Key + ",", "CONTRL: rejected", "dlv-contrl-1", "nothing was sent", "--force", "new idempotency key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := Guard(l, rec.SHA256, nil, true); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if err := Guard(l, sum([]byte("fixed bytes")), nil, false); err != nil {
		t.Fatalf("changed bytes: %v", err)
	}
	// --fixes naming the rejected upload with the same bytes: refused too.
	if err := Guard(l, rec.SHA256, &rec, false); !errors.As(err, &se) || se.Fixes || se.Rejection.Answer.ID != "dlv-contrl-1" {
		t.Fatalf("fixes with same bytes: %v", err)
	}
}

// Before its CONTRL is downloaded, an upload named with --fixes is still
// not resent unchanged; without --fixes nothing is known to be rejected.
func TestGuardFixesWithoutAnswer(t *testing.T) {
	st, rec := rejectedStore(t, "")
	l := linked(t, st)
	if len(Rejections(l)) != 0 {
		t.Fatal("no answer, yet a rejection")
	}
	if err := Guard(l, rec.SHA256, nil, false); err != nil {
		t.Fatalf("unanswered upload: %v", err)
	}
	err := Guard(l, rec.SHA256, &rec, false)
	var se *SameAsRejectedError
	if !errors.As(err, &se) || !se.Fixes || !strings.Contains(err.Error(), "the upload this file is meant to fix") {
		t.Fatalf("Guard = %v", err)
	}
	if err := Guard(l, sum([]byte("x")), &rec, false); err != nil {
		t.Fatal(err)
	}
}

// An accepting CONTRL rejects nothing.
func TestGuardAcceptedUpload(t *testing.T) {
	st, rec := rejectedStore(t, "")
	ok := "UNB+UNOA:3+4098765000003:14+4012345000009:14+250312:1031+CTL0050'UNH+C1+CONTRL:2:2:UN'UCI+ICR0042+4012345000009:14+4098765000003:14+7'UNT+3+C1'UNZ+1+CTL0050'"
	storeDelivery(t, st, "dlv-ok", "CONTRL", []byte(ok), t0.Add(time.Minute))
	l := linked(t, st)
	if rs := Rejections(l); len(rs) != 0 {
		t.Fatalf("rejections = %+v", rs)
	}
	if err := Guard(l, rec.SHA256, nil, false); err != nil {
		t.Fatal(err)
	}
}

func TestFindUploadAndResendText(t *testing.T) {
	pending := spool.UploadRecord{ConnectionID: resendConn, Key: "k:1", SHA256: "aa", Outcome: spool.OutcomePending}
	done := pending
	done.Outcome, done.UploadID = spool.OutcomeAccepted, "up-7"
	hist := []spool.UploadRecord{pending, done}
	for _, id := range []string{"up-7", "k:1", " up-7 "} {
		r, err := FindUpload(hist, id)
		if err != nil || r.UploadID != "up-7" || r.Outcome != spool.OutcomeAccepted {
			t.Errorf("FindUpload(%q) = %+v, %v", id, r, err)
		}
	}
	if _, err := FindUpload(hist, "up-8"); !errors.Is(err, ErrUnknownUpload) || !strings.Contains(err.Error(), "up-8") {
		t.Fatalf("unknown: %v", err)
	}
	if FixesRef(done) != "up-7" || FixesRef(pending) != "k:1" {
		t.Fatal("FixesRef")
	}
	resend := spool.UploadRecord{Key: "k:2", Fixes: "up-7"}
	if got := ResendText(hist, resend); got != "resend of upload up-7 (key k:1)" {
		t.Fatalf("ResendText = %q", got)
	}
	if got := ResendText(hist, spool.UploadRecord{Fixes: "gone\x1b"}); !strings.Contains(got, "not in this history") || strings.ContainsRune(got, 0x1b) {
		t.Fatalf("ResendText = %q", got)
	}
	if ResendText(hist, done) != "" {
		t.Fatal("an upload that fixes nothing")
	}
	fix := spool.UploadRecord{Key: "k:2", SHA256: "bb", Fixes: "up-7", Outcome: spool.OutcomeAccepted, UploadID: "up-8"}
	other := spool.UploadRecord{Key: "k:3", SHA256: "cc", Fixes: "up-9", Outcome: spool.OutcomeAccepted}
	fb := FixedBy(append(hist, fix, other), done)
	if len(fb) != 1 || fb[0].UploadID != "up-8" {
		t.Fatalf("FixedBy = %+v", fb)
	}
}

// The plan of a fix records which upload it fixes, and the fix (other
// bytes, same order) gets the next key number.
func TestPlanRecordsFixes(t *testing.T) {
	st, rec := rejectedStore(t, rejectsCONTRL)
	data, _ := os.ReadFile(rejectable)
	fixed := []byte(strings.Replace(string(data), "NAD+BY+4012345000085", "NAD+BY+4012345000009", 1))
	p, err := NewPlan(st, resendConn, InspectBytes("fixed.edi", fixed))
	if err != nil {
		t.Fatal(err)
	}
	p.Fixes = FixesRef(rec)
	if p.Key != "4012345000009:PO-4720:orders:2" {
		t.Fatalf("key = %q, want the next number", p.Key)
	}
	if err := p.Reserve(); err != nil {
		t.Fatal(err)
	}
	hist, err := st.Uploads(resendConn)
	if err != nil {
		t.Fatal(err)
	}
	last := hist[len(hist)-1]
	if last.Fixes != "up-1" || ResendText(hist, last) != "resend of upload up-1 (key 4012345000009:PO-4720:orders:1)" {
		t.Fatalf("recorded %+v", last)
	}
}

func spoolRec(business string) spool.UploadRecord {
	return spool.UploadRecord{ConnectionID: resendConn, BusinessID: business}
}
