package viewer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi/editest"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/pin"
)

// rejectedPins are the pins of resend's test CONTRL on the rejectable
// ORDERS: NAD (segment 6) element 2:1, DTM (4), UNH (2).
func rejectedPins(t *testing.T) []pin.Pin {
	t.Helper()
	parse := func(p string) *edi.Document { return editest.ParseFile(t, p) }
	pins, err := pin.Pins(parse(fixture("orders_rejectable.edi")), parse(filepath.Join("..", "..", "edi", "pin", "testdata", "contrl_rejects_42.edi")))
	if err != nil || len(pins) != 3 {
		t.Fatalf("pins %+v, %v", pins, err)
	}
	return pins
}

func openPinned(t *testing.T, pins []pin.Pin) Model {
	t.Helper()
	src, err := Open(fixture("orders_rejectable.edi"))
	if err != nil {
		t.Fatal(err)
	}
	m := New(testCommon(), src, Options{Pins: pins}).SetSize(120, 40)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// rowOf is the list row of segment i in the view.
func rowOf(view string, tag string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, " "+tag+" ") && (strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "> ")) {
			return l
		}
	}
	return ""
}

func TestPinsMarkedAndExplained(t *testing.T) {
	m := openPinned(t, rejectedPins(t))
	if m.Cursor() != 2 {
		t.Fatalf("opens on segment %d, want the first pinned (2, UNH)", m.Cursor())
	}
	v := m.View()
	for _, tag := range []string{"NAD", "DTM", "UNH"} {
		if r := rowOf(v, tag); !strings.Contains(r, PinMark) {
			t.Errorf("%s row %q has no pin mark", tag, r)
		}
	}
	if r := rowOf(v, "BGM"); strings.Contains(r, PinMark) {
		t.Errorf("BGM row %q is marked but no error names it", r)
	}
	if !strings.Contains(v, "3 errors of the partner's answer pinned") {
		t.Errorf("header does not count the pins:\n%s", v)
	}
	// p goes to the next pinned segment (DTM, 4), then NAD (6), then wraps.
	for _, want := range []int{4, 6, 2} {
		m, _ = m.Update(keyMsg("p"))
		if m.Cursor() != want {
			t.Fatalf("p: cursor %d, want %d", m.Cursor(), want)
		}
	}
	m, _ = m.Update(keyMsg("P"))
	if m.Cursor() != 6 {
		t.Fatalf("P: cursor %d, want 6", m.Cursor())
	}
	v = m.View()
	if !strings.Contains(v, PinMark+" CONTRL element 2.1 [12]: ") || !strings.Contains(v, "4012345000085") {
		t.Errorf("the detail pane does not explain the NAD pin:\n%s", v)
	}
}

func TestNoPinsNoMarks(t *testing.T) {
	m := openPinned(t, nil)
	v := m.View()
	if strings.Contains(v, PinMark) || m.Cursor() != 0 {
		t.Errorf("a viewer without pins shows pins or moved:\n%s", v)
	}
	if m2, _ := m.Update(keyMsg("p")); m2.Cursor() != 0 {
		t.Error("p moved without pins")
	}
}
