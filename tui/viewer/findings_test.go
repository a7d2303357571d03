package viewer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/edi/mig"
)

// TestContractFindingPinned: an ORDRSP in D.25A opened for a D.96A
// connection is a contract finding pinned on its UNH, counted in the
// header and explained in the detail pane; for a D.25A connection it is
// not (issue 21 §1: the connection's directory decides).
func TestContractFindingPinned(t *testing.T) {
	open := func(dir string) Model {
		src, err := Open(fixture("ordrsp_d25a.edi"))
		if err != nil {
			t.Fatal(err)
		}
		m := New(testCommon(), src, Options{Directory: dir}).SetSize(140, 40)
		t.Cleanup(func() { _ = m.Close() })
		return m
	}
	m := open("D.96A")
	v := m.View()
	if !strings.Contains(v, "1 contract finding pinned") {
		t.Fatalf("no contract finding in the header:\n%s", v)
	}
	if r := rowOf(v, "UNH"); !strings.Contains(r, PinMark) {
		t.Errorf("UNH row %q has no pin mark", r)
	}
	if !strings.Contains(v, PinMark+" contract: ORDRSP") || !strings.Contains(v, "profile revision is D.96A") {
		t.Errorf("the detail pane does not explain the finding:\n%s", v)
	}
	if v := open("D.25A").View(); strings.Contains(v, PinMark) {
		t.Errorf("a D.25A connection's ORDRSP in D.25A is pinned:\n%s", v)
	}
}

// TestMIGFindingPinned: the connection's partner rules pin their findings
// on the segment and element, with the rule's file:line (issue 21 §3).
func TestMIGFindingPinned(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "mig", "demo.toml")
	rs, err := mig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := FromBytes("po.edi", []byte("UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'"+
		"NAD+BY+4012345000009::9'NAD+DP+4012345000016::9'LIN+1++4000862141404:SRS'QTY+12:4'UNS+S'UNT+8+1'UNZ+1+R'"))
	if err != nil {
		t.Fatal(err)
	}
	m := New(testCommon(), src, Options{Directory: "D.96A", Rules: rs}).SetSize(140, 40)
	t.Cleanup(func() { _ = m.Close() })
	if m.Cursor() != 6 {
		t.Fatalf("opens on segment %d, want the pinned QTY (6)", m.Cursor())
	}
	v := m.View()
	if !strings.Contains(v, "1 partner rule finding (MIG) pinned") {
		t.Fatalf("no MIG finding in the header:\n%s", v)
	}
	if r := rowOf(v, "QTY"); !strings.Contains(r, PinMark) {
		t.Errorf("QTY row %q has no pin mark", r)
	}
	if !strings.Contains(v, PinMark+" MIG element 1.1: "+path+":20: QTY") {
		t.Errorf("the detail pane does not name the rule's file:line:\n%s", v)
	}
}
