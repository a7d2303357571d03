package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		"Authorization: Bearer key-1:s3cret rest": "Authorization: Bearer [redacted] rest",
		"authorization=abc":                       "authorization=[redacted]",
		"x bearer tok.en y":                       "x bearer [redacted] y",
		"X-B2B-Claim-Token: t-123":                "X-B2B-Claim-Token: [redacted]",
		`{"claimToken": "t-9", "a": 1}`:           `{"claimToken": "[redacted]", "a": 1}`,
		`secret=hunter2`:                          `secret=[redacted]`,
		"nothing to hide":                         "nothing to hide",
	} {
		if got := string(Scrub([]byte(in))); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}

// A payload that itself carries an Authorization header next to an error
// is bundled with the value redacted, in the directory and the archive;
// without a Timeline the bundle says it has none.
func TestBundleScrubsPayloadSecrets(t *testing.T) {
	st, err := spool.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("UNB+UNOA:3+A+B+250101:1200+R'UNH+1+APERAK:D:96A:UN'FTX+AAO+++Authorization: Bearer CANARY-PAYLOAD-77'BGM+313+X+27'UNT+3+1'")
	sum := sha256.Sum256(data)
	w, err := st.Begin("c1", "d1")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(data)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := w.Commit(spool.Meta{ConnectionID: "c1", DeliveryAttemptID: "d1", MessageType: "APERAK", Size: int64(len(data)),
		SHA256: hex.EncodeToString(sum[:]), ReceivedAt: at}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "d1", OutDir: out, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(res.Dir) != "b2bx-bundle-d1-20260102T030405Z" {
		t.Fatalf("dir %s", res.Dir)
	}
	exc, _ := os.ReadFile(filepath.Join(res.Dir, "excerpts.txt"))
	if !strings.Contains(string(exc), "Bearer [redacted]") {
		t.Fatalf("excerpts do not show the redacted header:\n%s", exc)
	}
	arch, _ := os.ReadFile(res.Archive)
	for _, f := range res.Files {
		b, _ := os.ReadFile(filepath.Join(res.Dir, f))
		if strings.Contains(string(b), "CANARY-PAYLOAD-77") {
			t.Errorf("%s holds the canary", f)
		}
	}
	if len(arch) == 0 {
		t.Fatal("no archive")
	}
	tl, _ := os.ReadFile(filepath.Join(res.Dir, "timeline.txt"))
	if !strings.Contains(string(tl), "no tracking index") {
		t.Fatalf("timeline.txt = %q", tl)
	}
	readme, _ := os.ReadFile(filepath.Join(res.Dir, "README.txt"))
	if !strings.Contains(string(readme), "was not acknowledged") || !strings.Contains(string(readme), "unchanged") {
		t.Fatalf("README:\n%s", readme)
	}
	// The stored file changed since: the bundle says so.
	stored, _ := st.Lookup("c1", "d1")
	if err := os.WriteFile(stored.Path, append(data, 'x'), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err = Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "d1", OutDir: out, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Dir, "-2") {
		t.Fatalf("second bundle %s", res.Dir)
	}
	checks, _ := os.ReadFile(filepath.Join(res.Dir, "checks.txt"))
	if !strings.Contains(string(checks), "CHANGED") {
		t.Fatalf("checks:\n%s", checks)
	}
}

// A payload with thousands of errors gets the first excerpts and a line
// saying there are more.
func TestBundleBoundsExcerpts(t *testing.T) {
	st, err := spool.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("UNB+UNOA:3+A+B+250101:1200+R'" + strings.Repeat("UNH+1+ORDERS:D:96A:UN'BGM+220+X+9'", 500))
	sum := sha256.Sum256(data)
	w, _ := st.Begin("c1", "big")
	_, _ = w.Write(data)
	if _, err := w.Commit(spool.Meta{ConnectionID: "c1", DeliveryAttemptID: "big", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ReceivedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	res, err := Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "big", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	exc, _ := os.ReadFile(filepath.Join(res.Dir, "excerpts.txt"))
	if n := strings.Count(string(exc), "parse error"); n != maxExcerpts || !strings.Contains(string(exc), "more errors than the 50 shown") {
		t.Fatalf("%d excerpts:\n%.2000s", n, exc)
	}
}

// TestBundleContractFindings: an ORDRSP in D.25A stored on a D.96A
// connection is a contract finding in README.txt and answers.txt; on a
// D.25A connection it is not (issue 21 §1: the connection's directory
// decides).
func TestBundleContractFindings(t *testing.T) {
	st, err := spool.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "edifact", "ordrsp_d25a.edi"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	w, _ := st.Begin("c1", "d25")
	_, _ = w.Write(data)
	if _, err := w.Commit(spool.Meta{ConnectionID: "c1", DeliveryAttemptID: "d25", MessageType: "ORDRSP", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ReceivedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	write := func(dir string) (readme, answers string) {
		res, err := Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "d25", OutDir: t.TempDir(), Directory: dir})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := os.ReadFile(filepath.Join(res.Dir, "README.txt"))
		a, _ := os.ReadFile(filepath.Join(res.Dir, "answers.txt"))
		return string(r), string(a)
	}
	readme, answers := write("D.96A")
	if !strings.Contains(readme, "Contract findings (the Partner API's version rules; the connection's directory: D.96A)") ||
		!strings.Contains(readme, "is in directory D.25A, but this connection's profile revision is D.96A") {
		t.Fatalf("README:\n%s", readme)
	}
	if !strings.Contains(answers, "contract finding (message 1, segment index 2): ORDRSP") {
		t.Fatalf("answers.txt:\n%s", answers)
	}
	readme, answers = write("D.25A")
	if strings.Contains(readme, "Contract findings") || strings.Contains(answers, "contract finding") {
		t.Fatalf("a D.25A connection's ORDRSP in D.25A is a finding:\n%s\n%s", readme, answers)
	}
}
