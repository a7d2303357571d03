package pin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi/editest"

	"github.com/nutrab2b/b2bx/edi"
)

// parseFile reads and parses path (editest.ParseFile).
func parseFile(t *testing.T, path string) *edi.Document { return editest.ParseFile(t, path) }

var rejectable = filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi")

type wantPin struct {
	level         Level
	seg, el, comp int
	code, tag     string
	textHas       []string
}

func checkPins(t *testing.T, orders *edi.Document, got []Pin, want []wantPin) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d pins, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		p := got[i]
		if p.Level != w.level || p.Segment != w.seg || p.Element != w.el || p.Component != w.comp || p.Code != w.code {
			t.Errorf("pin %d = %+v, want %+v", i, p, w)
			continue
		}
		if tag := orders.Segment(p.Segment).Tag(); tag != w.tag {
			t.Errorf("pin %d on %s, want %s", i, tag, w.tag)
		}
		for _, s := range w.textHas {
			if !strings.Contains(p.Text, s) {
				t.Errorf("pin %d text %q lacks %q", i, p.Text, s)
			}
		}
	}
}

func TestContrlPinsSegmentsAndElements(t *testing.T) {
	orders := parseFile(t, rejectable)
	pins, err := Pins(orders, parseFile(t, "testdata/contrl_rejects_42.edi"))
	if err != nil {
		t.Fatal(err)
	}
	checkPins(t, orders, pins, []wantPin{
		{level: LevelElement, seg: 6, el: 2, comp: 1, code: "12", tag: "NAD",
			textHas: []string{"error 12", "NAD (Name and address) at position 5", "element 2:1", `"4012345000085"`}},
		{level: LevelSegment, seg: 4, code: "13", tag: "DTM", textHas: []string{"error 13", "position 3"}},
		{level: LevelSegment, seg: 2, code: "15", tag: "UNH", textHas: []string{"segment position 40", "has 15 segments"}},
	})
	for _, p := range pins {
		if p.Source != "CONTRL" || p.Message != 0 || p.Position == 0 {
			t.Errorf("pin %+v: source/message", p)
		}
	}
}

func TestContrlPinsInterchangeLevel(t *testing.T) {
	orders := parseFile(t, rejectable)
	pins, err := Pins(orders, parseFile(t, "testdata/contrl_unb_42.edi"))
	if err != nil {
		t.Fatal(err)
	}
	checkPins(t, orders, pins, []wantPin{
		{level: LevelElement, seg: 1, el: 3, comp: 1, code: "29", tag: "UNB",
			textHas: []string{"interchange ICR0042", "4 rejected", "in UNB element 3:1", `"4098765000003"`}},
	})
	if pins[0].Message != -1 {
		t.Errorf("interchange pin message = %d", pins[0].Message)
	}
}

func TestContrlPinsOtherInterchange(t *testing.T) {
	orders := parseFile(t, rejectable)
	pins, err := Pins(orders, parseFile(t, "testdata/contrl_other.edi"))
	if !errors.Is(err, ErrOtherInterchange) || len(pins) != 0 {
		t.Fatalf("pins %+v, err %v; want none and ErrOtherInterchange", pins, err)
	}
	_, err = ContrlPins(orders, parseFile(t, "testdata/contrl_other.edi").Messages[0].Summary().Contrl)
	if err == nil || !strings.Contains(err.Error(), "ICR9999") || !strings.Contains(err.Error(), "ICR0042") {
		t.Fatalf("err = %v, want both references named", err)
	}
}

// The rejection the simulator sends for the shipped fixture pins the
// buyer's GLN (see partnersim's partner_rules_test).
func TestAperakPins(t *testing.T) {
	orders := parseFile(t, rejectable)
	pins, err := Pins(orders, parseFile(t, "testdata/aperak_42.edi"))
	if err != nil {
		t.Fatal(err)
	}
	checkPins(t, orders, pins, []wantPin{
		{level: LevelSegment, seg: 12, code: "12", tag: "LIN", textHas: []string{"APERAK error 12", "Unknown article number", "line 2, item 4000862141411"}},
		{level: LevelMessage, seg: 3, code: "Z01", tag: "BGM", textHas: []string{"Delivery date too early"}},
		{level: LevelSegment, seg: 9, code: "Z02", tag: "LIN", textHas: []string{"line 1, RFF+LI"}},
	})
	other := parseFile(t, filepath.Join("..", "..", "testdata", "edifact", "orders_d96a.edi")) // PO-4711
	if p := AperakPins(other, parseFile(t, "testdata/aperak_42.edi").Messages[0].Summary().Aperak); len(p) != 0 {
		t.Fatalf("an APERAK for PO-4720 pinned PO-4711: %+v", p)
	}
}

// Pin texts quote payload values: they are sanitised.
func TestPinTextIsTerminalSafe(t *testing.T) {
	data, _ := os.ReadFile(rejectable)
	data = []byte(strings.Replace(string(data), "NAD+BY+4012345000085", "NAD+BY+40123\x1b[2J45000008", 1))
	orders, err := edi.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	pins, _ := Pins(orders, parseFile(t, "testdata/contrl_rejects_42.edi"))
	for _, p := range pins {
		if strings.ContainsRune(p.Text, 0x1b) {
			t.Fatalf("raw escape in %q", p.Text)
		}
	}
	if !strings.Contains(pins[0].Text, "^[") {
		t.Fatalf("pin text %q does not show the escape", pins[1].Text)
	}
}

// A rejecting level without its own error is pinned only when nothing
// below says why; a message the ORDERS lacks is still reported.
func TestContrlPinsMessageLevel(t *testing.T) {
	orders := parseFile(t, rejectable)
	pins, err := Pins(orders, parseFile(t, "testdata/contrl_ucm_42.edi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pins) != 2 {
		t.Fatalf("pins = %+v", pins)
	}
	checkPins(t, orders, pins[:1], []wantPin{{level: LevelMessage, seg: 16, code: "35", tag: "UNT", textHas: []string{"message M0001", "in UNT"}}})
	if p := pins[1]; p.Segment != -1 || !strings.Contains(p.Text, "no message with that reference") || !strings.Contains(p.Text, "M0002") {
		t.Fatalf("pin for a missing message = %+v", p)
	}
	// UCI 4 alone (no message responses): the interchange is pinned on UNB.
	data := "UNB+UNOA:3+X:14+4012345000009:14+250312:1031+C'UNH+C1+CONTRL:2:2:UN'UCI+ICR0042+4012345000009:14+4098765000003:14+4'UNT+3+C1'UNZ+1+C'"
	answer, err := edi.Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	pins, _ = Pins(orders, answer)
	checkPins(t, orders, pins, []wantPin{{level: LevelInterchange, seg: 1, tag: "UNB", textHas: []string{"interchange ICR0042 4 rejected"}}})
}
