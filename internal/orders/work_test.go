package orders

import (
	"errors"
	"github.com/nutrab2b/b2bx/edi/pin"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

func TestNewWorkCopyNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work", "c")
	rec := spoolRec("PO-4720")
	p1, err := NewWorkCopy(dir, rec, []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := NewWorkCopy(dir, rec, []byte("two"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p1) != "PO-4720-fix.edi" || filepath.Base(p2) != "PO-4720-fix-2.edi" {
		t.Fatalf("paths %s, %s", p1, p2)
	}
	for p, want := range map[string]string{p1: "one", p2: "two"} {
		b, _ := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if string(b) != want || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %q %v", p, b, fi.Mode())
		}
	}
}

// The "E" flow without the app: copy the rejected bytes, run the shipped
// fix script as the editor, review the result.
func TestReviewFixAfterEditor(t *testing.T) {
	st, rec := rejectedStore(t, rejectsCONTRL)
	l := linked(t, st)
	rejected, _ := os.ReadFile(rejectable)
	orders, _ := edi.Parse(rejected)
	pins, err := pin.Pins(orders, parseFile(t, rejectsCONTRL))
	if err != nil {
		t.Fatal(err)
	}
	path, err := NewWorkCopy(WorkDir(st, resendConn), rec, rejected)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, st.Root()) {
		t.Fatalf("work copy %s outside the store", path)
	}

	// Not edited: nothing changed, and sending it is refused.
	r, err := ReviewFix(t.Context(), st, l, rec, rejected, path, pins, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Unchanged || len(r.Changes) != 0 || !errors.Is(r.Refused, ErrSameAsRejected) {
		t.Fatalf("unedited review = %+v", r)
	}

	out, err := exec.Command("sh", filepath.Join("..", "..", "testdata", "fix-rejectable.sh"), path).CombinedOutput()
	if err != nil {
		t.Fatalf("fix script: %v %s", err, out)
	}
	r, err = ReviewFix(t.Context(), st, l, rec, rejected, path, pins, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unchanged || r.Refused != nil || r.Preflight.Blocked() {
		t.Fatalf("review = %+v", r)
	}
	if len(r.Changes) != 1 || r.Changes[0].Kind != pin.Changed || r.Changes[0].Old != 6 ||
		!strings.Contains(r.Changes[0].OldText, "4012345000085") || !strings.Contains(r.Changes[0].NewText, "4012345000009") {
		t.Fatalf("changes = %+v", r.Changes)
	}
	if !strings.HasPrefix(r.Changes[0].String(), "~ 7 NAD+BY+4012345000085") {
		t.Fatalf("change line %q", r.Changes[0].String())
	}
	if r.Plan.Key != "4012345000009:PO-4720:orders:2" || r.Plan.Fixes != "up-1" {
		t.Fatalf("key plan %q fixes %q", r.Plan.Key, r.Plan.Fixes)
	}
	// pins: NAD element (touched), DTM (not), the out-of-range one on UNH (not).
	if len(r.Touched) != 3 || !r.Touched[0] || r.Touched[1] || r.Touched[2] {
		t.Fatalf("touched = %v for %+v", r.Touched, pins)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "keeps the interchange control reference ICR0042") {
		t.Fatalf("notes %q", r.Notes)
	}
	// A fix with a new reference: no note.
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), "ICR0042", "ICR0043")), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err = ReviewFix(t.Context(), st, l, rec, rejected, path, pins, Options{}); err != nil || len(r.Notes) != 0 || len(r.Changes) != 3 {
		t.Fatalf("new reference: %+v %v", r, err)
	}
	// Nothing was reserved by the review.
	if h, _ := st.Uploads(resendConn); len(h) != 1 {
		t.Fatalf("history has %d records", len(h))
	}
}

func TestDiffSegmentsAddRemove(t *testing.T) {
	doc := func(s string) *edi.Document {
		d, err := edi.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := doc("UNB+UNOA:3+A+B+250101:1200+R'UNH+1+ORDERS:D:96A:UN'BGM+220+P+9'DTM+137:20250101:102'LIN+1'UNT+5+1'UNZ+1+R'")
	b := doc("UNB+UNOA:3+A+B+250101:1200+R'UNH+1+ORDERS:D:96A:UN'BGM+220+P+9'LIN+1'QTY+21:2'UNT+5+1'UNZ+1+R'")
	got := pin.DiffSegments(a, b)
	if len(got) != 2 || got[0].Kind != pin.Removed || got[0].Old != 3 || got[1].Kind != pin.Added || got[1].New != 4 {
		t.Fatalf("diff = %+v", got)
	}
	if got[0].String() != "- 4 DTM+137:20250101:102" || got[1].String() != "+ 5 QTY+21:2" {
		t.Fatalf("lines %q %q", got[0], got[1])
	}
	if d := pin.DiffSegments(a, a); len(d) != 0 {
		t.Fatalf("self diff %+v", d)
	}
}

func TestEditorArgs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if a := EditorArgs(env(nil), "/w/f.edi"); strings.Join(a, "|") != `sh|-c|vi "$@"|vi|/w/f.edi` {
		t.Fatalf("default %q", a)
	}
	if a := EditorArgs(env(map[string]string{"EDITOR": "nano", "VISUAL": "code --wait"}), "x"); a[2] != `code --wait "$@"` {
		t.Fatalf("VISUAL first: %q", a)
	}
	// Run it: the shipped fix script as the editor, on a path with a space.
	dir := t.TempDir()
	path := filepath.Join(dir, "my fix.edi")
	data, _ := os.ReadFile(rejectable)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fix-rejectable.sh"))
	a := EditorArgs(env(map[string]string{"EDITOR": script}), path)
	if out, err := exec.Command(a[0], a[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), "NAD+BY+4012345000009::9") || strings.Contains(string(got), "4012345000085") {
		t.Fatalf("not fixed:\n%s", got)
	}
}
