package pin

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/mig"
)

// TestContractPins: an ORDRSP in D.25A on a D.96A connection is a
// contract pin on its UNH; the same file on a D.25A connection has none.
func TestContractPins(t *testing.T) {
	doc := parseFile(t, filepath.Join("..", "..", "testdata", "edifact", "ordrsp_d25a.edi"))
	got := ContractPins(doc, "D.96A")
	if len(got) != 1 {
		t.Fatalf("pins %+v, want one", got)
	}
	p := got[0]
	if p.Source != SourceContract || !p.Finding() || p.Level != LevelMessage || p.Segment != doc.Messages[0].First || p.Message != 0 || p.Position != 1 ||
		!strings.Contains(p.Text, "D.25A") || !strings.Contains(p.Text, "profile revision is D.96A") {
		t.Fatalf("pin %+v", p)
	}
	if got := ContractPins(doc, "D.25A"); got != nil {
		t.Fatalf("on a D.25A connection: %+v", got)
	}
}

// TestMIGPins: a value rule's finding is pinned on its element with the
// rule's file:line; a count rule's on the message's UNH.
func TestMIGPins(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "mig", "demo.toml")
	rs, err := mig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := edi.Parse([]byte("UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'" +
		"NAD+BY+4012345000009::9'LIN+1++4000862141404:SRS'QTY+12:4'UNS+S'UNT+7+1'UNZ+1+R'"))
	if err != nil {
		t.Fatal(err)
	}
	got := MIGPins(doc, rs)
	if len(got) != 2 {
		t.Fatalf("pins %+v, want two", got)
	}
	qty, count := got[0], got[1]
	if qty.Source != SourceMIG || qty.Level != LevelElement || qty.Segment != 5 || qty.Element != 1 || qty.Component != 1 || qty.Position != 5 ||
		qty.Rule != path+":20" || !strings.HasPrefix(qty.Text, path+":20: QTY") {
		t.Fatalf("value pin %+v", qty)
	}
	if count.Level != LevelMessage || count.Segment != 1 || count.Position != 1 || count.Rule != path+":5" || !strings.Contains(count.Text, "NAD+DP") {
		t.Fatalf("count pin %+v", count)
	}
	if MIGPins(doc, nil) != nil {
		t.Fatal("no rules, no pins")
	}
}
