package viewer

import (
	"bytes"
	"strings"
	"testing"
)

// hostile is a UTF-8 (UNOW) ORDERS whose values carry what a terminal
// acts on: OSC 52 (clipboard), OSC 0/2 (title), CSI 2J (clear screen), CR,
// BEL, U+009B (8-bit CSI) and U+202E (right-to-left override); the control
// reference and an unknown segment carry some too, and a Latin-1
// interchange carries a raw 0x9B byte.
func hostile() []byte {
	const ref = "ICR\x1b]0;ref-title\x07X"
	return []byte("UNA:+.? '" +
		"UNB+UNOW:4+4012345000009:14+4098765000003:14+20250312:1030+" + ref + "++ORDERS'" +
		"UNH+M0001+ORDERS:D:96A:UN:EAN008'" +
		"BGM+220+PO-\x1b]52;c;Y2FuYXJ5\x07-\x1b]2;pwned-title\x07+9'" +
		"DTM+137:20250312:102'" +
		"NAD+BY+4012345000009::9++ACME\x1b[2J GmbH+Main\rStreet 1+Town\u009b31m++50667+DE'" +
		"FTX+AAI+++evil \u202ereversed text'" +
		"X\x1b[1+\x1b]52;c;QUFB\x07'" +
		"UNT+7+M0001'" +
		"UNZ+1+" + ref + "'" +
		"UNB+UNOC:3+A:14+B:14+250312:1030+R2'UNH+1+ORDERS:D:96A:UN'BGM+220+L1\x9b2J\x9d0;t\x07+9'UNT+3+1'UNZ+1+R2'")
}

// TestHostilePayloadRendersInert walks every segment in every pane and
// checks that no frame carries an escape, a C1 control, BEL, CR, a bidi
// override or an OSC 52 clipboard write. The styles are NO_COLOR, so the
// viewer itself writes no escapes either.
func TestHostilePayloadRendersInert(t *testing.T) {
	m := fromBytes(t, hostile())
	if len(m.doc().Issues()) == 0 {
		t.Fatal("the hostile input should have issues to list")
	}
	frames := 0
	check := func(where string, v string) {
		t.Helper()
		frames++
		b := []byte(v)
		// No ESC and no C1 OSC/CSI: no OSC 52, no title, no clear screen.
		for _, bad := range [][]byte{{0x1b}, {0x9b}, {0x9d}, {0x07}, {'\r'}, []byte("\u009b"), []byte("\u009d"), []byte("\u202e")} {
			if bytes.Contains(b, bad) {
				t.Fatalf("%s: frame contains %q:\n%s", where, bad, v)
			}
		}
	}
	n := m.doc().Len()
	for i := 0; i < n; i++ {
		check("list+detail", m.View())
		check("raw", press(t, m, "r").View())
		m = press(t, m, "j")
	}
	m = press(t, m, "g", "i")
	for k := 0; k < len(m.doc().Issues()); k++ {
		check("issues", m.View())
		check("issue raw", press(t, press(t, m, "enter"), "r").View())
		m = press(t, m, "j")
	}
	// A query with an escape is shown escaped too.
	check("search", typeText(t, press(t, m, "tab", "/"), "\x1b]52;c;x\x07").View())
	// The escaped forms are what the engineer sees.
	v := press(t, m, "g", "tab", "j", "j", "j", "j").View() // BGM
	if !strings.Contains(v, "PO-^[]52;c;Y2FuYXJ5^G-^[]2;pwned-title^G") {
		t.Fatalf("BGM not shown escaped:\n%s", v)
	}
	if frames < 2*n {
		t.Fatalf("only %d frames checked", frames)
	}
}

// TestHostileTitle: a file name cannot carry escapes into the header.
func TestHostileTitle(t *testing.T) {
	src, err := FromBytes("evil-\x1b]2;fname\x07-\x1b[2J.edi", []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R'UNZ+0+R'"))
	if err != nil {
		t.Fatal(err)
	}
	m := New(testCommon(), src, Options{}).SetSize(100, 30)
	if v := m.View(); strings.Contains(v, "\x1b") || !strings.Contains(v, "evil-^[]2;fname^G-^[[2J.edi") {
		t.Fatalf("title:\n%s", v)
	}
	m = New(testCommon(), src, Options{Title: "entry \u202e\x9b"}).SetSize(100, 30)
	if got := m.Name(); got != "entry <U+202E>\ufffd" {
		t.Fatalf("Name() = %q", got)
	}
}
