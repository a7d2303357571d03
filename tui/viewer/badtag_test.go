package viewer

import (
	"strings"
	"testing"
)

// TestBadTagShownRawWithElements: a segment with a bad tag shows the tag
// quoted and escaped, in its row and its details, and its details list
// the elements instead of "no data elements".
func TestBadTagShownRawWithElements(t *testing.T) {
	m := fromBytes(t, []byte("UNB+UNOA:3+A+B+250312:1030+R'UNH+1+ORDERS:D:96A:UN'b\x01m+220+PO-77+9'DTM+137:20250312:102'UNS+S'UNT+6+1'UNZ+1+R'"))
	v := press(t, m, "j", "j").View()
	row := selectedLine(t, v)
	if !strings.Contains(row, `"b\x01m"+220+PO-77+9`) {
		t.Fatalf("row does not show the escaped tag and its elements: %q\n%s", row, v)
	}
	for _, want := range []string{`Segment 2 "b\x01m"`, "not a valid segment tag", "PO-77", "010", "020"} {
		if !strings.Contains(v, want) {
			t.Fatalf("details lack %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "no data elements") || strings.Contains(v, "(not in the directory's segment)") {
		t.Fatalf("details say the bad tag has no elements or label each:\n%s", v)
	}
}

// TestHeaderSyntaxVersionMissing: an UNB without a syntax version reads
// "syntax version missing" in the viewer's header, never "UNOA:0".
func TestHeaderSyntaxVersionMissing(t *testing.T) {
	m := fromBytes(t, []byte("UNB+UNOA+A+B+250312:1030+R'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-77+9'UNS+S'UNT+4+1'UNZ+1+R'"))
	v := m.View()
	if strings.Contains(v, "UNOA:0") || !strings.Contains(v, "UNOA (syntax version missing)") {
		t.Fatalf("header does not say the syntax version is missing:\n%s", v)
	}
}
