package clip

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

const canaryToken = "CANARY-CLIP-TOKEN-42"

func TestOSC52(t *testing.T) {
	seq, err := OSC52("0f8c-1", false)
	if err != nil || seq != "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte("0f8c-1"))+"\a" {
		t.Fatalf("%q %v", seq, err)
	}
	tm, _ := OSC52("0f8c-1", true)
	if tm != "\x1bPtmux;\x1b\x1b]52;c;MGY4Yy0x\a\x1b\\" {
		t.Fatalf("tmux %q", tm)
	}
	if _, err := OSC52(strings.Repeat("x", MaxValue+1), false); !errors.Is(err, ErrTooLong) {
		t.Fatalf("long: %v", err)
	}
}

// The claim panel's values: never the token, whatever it is.
func TestItemsNeverHoldATokenAndAreSafe(t *testing.T) {
	c := apiclient.Claim{DeliveryAttemptID: "d-1", Token: apiclient.NewClaimToken(canaryToken), CorrelationID: "corr-1"}
	all := ForClaim(c)
	all = append(all, ForEntry(apiclient.Entry{DeliveryAttemptID: "d-1", InterchangeID: "ic\x1b[2J", PayloadSHA256: "ab"})...)
	all = append(all, ForStored(spool.Stored{Meta: spool.Meta{DeliveryAttemptID: "d-1", SHA256: "ab", ReceiptID: "r-1"}, Path: "/s/d-1.edi"})...)
	all = append(all, ForUpload(spool.UploadRecord{UploadID: "u-1", Key: "k:1", SHA256: "ab", CorrelationID: "corr-2"})...)
	labels := map[string]bool{}
	for _, it := range all {
		labels[it.Label] = true
		seq, _ := OSC52(it.Value, true)
		if strings.Contains(it.Value, canaryToken) || strings.Contains(seq, base64.StdEncoding.EncodeToString([]byte(canaryToken))) {
			t.Fatalf("the claim token is copyable: %+v", it)
		}
		if strings.ContainsRune(it.Value, 0x1b) {
			t.Fatalf("raw escape in %+v", it)
		}
	}
	for _, l := range []string{"delivery ID", "interchange ID", "SHA-256", "stored path", "idempotency key", "correlation ID", "upload ID", "receipt ID"} {
		if !labels[l] {
			t.Errorf("no %s to copy", l)
		}
	}
	if got := ForClaim(c); len(got) != 2 {
		t.Fatalf("claim items %+v", got)
	}
	if got := ForEntry(apiclient.Entry{DeliveryAttemptID: "d"}); len(got) != 1 {
		t.Fatalf("empty values are left out: %+v", got)
	}
}

func TestCopied(t *testing.T) {
	if got := Copied(Item{Label: "delivery ID", Value: "0f8c2a4e-1d2b-4c3a-9e8f-0123456789ab"}); got != "copied delivery ID 0f8c2a4e-1d2b-4c3a-9e8f… (36 characters)" {
		t.Fatalf("%q", got)
	}
	if got := Copied(Item{Label: "key", Value: "k:1"}); got != "copied key k:1 (3 characters)" {
		t.Fatalf("%q", got)
	}
}
