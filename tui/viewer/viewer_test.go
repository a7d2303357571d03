package viewer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/human"
)

func TestHeaderCard(t *testing.T) {
	m := open(t, fixture("contrl_22_rejected.edi"))
	v := m.View()
	for _, want := range []string{
		"contrl_22_rejected.edi", "10 segments", "1 interchange", "1 message",
		"ref CTL0003", "UNOA:3 (ASCII)", "from 4098765000003 (qualifier 14 GS1) to 4012345000009 (qualifier 14 GS1)",
		"✓ VALID: no errors, no warnings",
		"Message     ✗ CONTRL for interchange ICR0009: REJECTED, 2 errors", // marked without colour too
		"CONTRL 2:2 / D:3 (syntax 3)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("header lacks %q:\n%s", want, v)
		}
	}
	if got := strings.Count(v, "\n") + 1; got != 40 {
		t.Fatalf("View has %d lines, want the height 40", got)
	}
}

// TestHeaderReadsSummaryOnce: the header's summary in words comes from
// the per-message cache (reading a summary walks the whole message: 2.5
// ms per frame on the 16 MiB file when it was read every frame).
func TestHeaderReadsSummaryOnce(t *testing.T) {
	m := open(t, fixture("contrl_22_rejected.edi"))
	_ = m.View()
	if _, ok := m.cache.messages[0]; !ok {
		t.Fatal("the first frame did not cache the message")
	}
	m.cache.messages[0] = messageInfo{headline: "FROM THE CACHE"}
	if v := press(t, m, "j").View(); !strings.Contains(v, "FROM THE CACHE") || strings.Contains(v, "REJECTED") {
		t.Fatalf("the next frame read the summary again:\n%s", v)
	}
}

// TestHeaderD25ANote: a D.25A message is shown with the D.24A structure
// and the note saying so, in the header and the detail pane.
func TestHeaderD25ANote(t *testing.T) {
	m := open(t, fixture("ordrsp_d25a.edi"))
	m = press(t, m, "j", "j", "j") // BGM
	v := m.View()
	if !strings.Contains(v, "ORDRSP D.24A  note: D.25A checked with the D.24A structure") {
		t.Fatalf("no D.25A note in the header:\n%s", v)
	}
	if !strings.Contains(v, "\nnote: D.25A checked with the D.24A structure") {
		t.Fatalf("no D.25A note in the details:\n%s", v)
	}
	if !strings.Contains(v, "ORDRSP to order PO-2025-0815: 2 lines changed (of 3)") {
		t.Fatalf("no summary in words:\n%s", v)
	}
}

func TestVerdictInvalid(t *testing.T) {
	m := open(t, fixture("errors/unt_count.edi"))
	if v := m.View(); !strings.Contains(v, "✗ INVALID: 3 errors, no warnings  (i: issues)") {
		t.Fatalf("verdict:\n%s", v)
	}
}

func TestNavigation(t *testing.T) {
	m := fromBytes(t, generateOrders(64<<10))
	n := m.doc().Len()
	rows := m.rows()
	for _, tc := range []struct {
		keys []string
		want int
	}{
		{[]string{"j", "j", "down"}, 3},
		{[]string{"j", "j", "k", "up"}, 0},
		{[]string{"k"}, 0}, // stops at the top
		{[]string{"G"}, n - 1},
		{[]string{"G", "j"}, n - 1}, // stops at the bottom
		{[]string{"end", "g"}, 0},
		{[]string{"end", "home"}, 0},
		{[]string{"pgdown"}, rows},
		{[]string{"pgdown", "pgdown", "pgup"}, rows},
		{[]string{"f", "b"}, 0},
		{[]string{"ctrl+d"}, rows / 2},
		{[]string{"ctrl+d", "ctrl+d", "ctrl+u"}, rows / 2},
		{[]string{"G", "pgdown"}, n - 1},
		{[]string{"pgup"}, 0},
	} {
		got := press(t, m, tc.keys...)
		if got.Cursor() != tc.want {
			t.Errorf("%v: cursor %d, want %d", tc.keys, got.Cursor(), tc.want)
			continue
		}
		// The selected row is on screen, marked even without colour.
		sel := selectedLine(t, got.View())
		if !strings.Contains(sel, " "+itoa(tc.want)+" ") {
			t.Errorf("%v: selected row %q is not segment %d", tc.keys, sel, tc.want)
		}
	}
}

func itoa(n int) string { return strings.TrimSpace(strings.ReplaceAll(human.Int(n), ",", "")) }

func TestDetailPane(t *testing.T) {
	m := open(t, fixture("orders_d96a.edi"))
	doc := m.doc()
	nad := -1
	for i := 0; i < doc.Len(); i++ {
		if doc.Segment(i).Tag() == "NAD" {
			nad = i
			break
		}
	}
	m = press(t, m, strings.Split(strings.Repeat("j", nad), "")...)
	v := m.View()
	for _, want := range []string{
		"Segment " + itoa(nad) + " NAD Name and address · SG2/NAD",
		"010      3035       Party qualifier                      BY = Buyer",
		"020:1    C082.3039  Party id. identification             4012345000009",
		"020:3    C082.3055  Code list responsible agency, coded  9 = EAN (International Article Numbering association)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q:\n%s", want, v)
		}
	}
}

func TestSearchNextPrevWraps(t *testing.T) {
	m := open(t, fixture("contrl_22_rejected.edi")) // UCS at 4 and 5
	m = press(t, m, "/")
	if !m.Capturing() {
		t.Fatal("the search input does not capture keys")
	}
	m = typeText(t, m, "ucs")
	if m.Cursor() != 4 {
		t.Fatalf("incremental search: cursor %d, want 4", m.Cursor())
	}
	m = press(t, m, "enter")
	if m.Capturing() || m.Cursor() != 4 {
		t.Fatalf("after enter: capturing %v, cursor %d", m.Capturing(), m.Cursor())
	}
	m = press(t, m, "n")
	if m.Cursor() != 5 {
		t.Fatalf("n: cursor %d, want 5", m.Cursor())
	}
	m = press(t, m, "n")
	if m.Cursor() != 4 || !strings.Contains(m.View(), "(search wrapped around)") {
		t.Fatalf("n wraps: cursor %d, view:\n%s", m.Cursor(), m.View())
	}
	m = press(t, m, "N")
	if m.Cursor() != 5 || !strings.Contains(m.View(), "wrapped") {
		t.Fatalf("N wraps backwards: cursor %d", m.Cursor())
	}
	m = press(t, m, "N")
	if m.Cursor() != 4 {
		t.Fatalf("N: cursor %d, want 4", m.Cursor())
	}
}

func TestSearchValuesCaseAndMisses(t *testing.T) {
	m := open(t, fixture("aperak_d96a.edi"))
	// A value, lower case: found case-insensitively (FTX at 6).
	if got := press(t, typeText(t, press(t, m, "/"), "unknown article"), "enter"); got.Cursor() != 6 {
		t.Fatalf("value search: cursor %d, want 6", got.Cursor())
	}
	// With capitals the case must match.
	got := press(t, typeText(t, press(t, m, "/"), "UNKNOWN"), "enter")
	if got.Cursor() != 0 || !strings.Contains(got.View(), `no segment contains "UNKNOWN"`) {
		t.Fatalf("exact-case miss: cursor %d:\n%s", got.Cursor(), got.View())
	}
	// esc in the input returns to where the search started.
	got = press(t, typeText(t, press(t, m, "j", "/"), "erc"), "esc")
	if got.Cursor() != 1 || got.Capturing() {
		t.Fatalf("esc: cursor %d capturing %v", got.Cursor(), got.Capturing())
	}
	// n without a query says how to search.
	if got := press(t, m, "n"); !strings.Contains(got.View(), "press /") {
		t.Fatalf("n without query:\n%s", got.View())
	}
}

// TestSearchIsBoundedAndCancellable: on a large input one step reads a
// bounded amount and hands back to the program; esc stops the search and
// its pending step is then ignored.
func TestSearchIsBoundedAndCancellable(t *testing.T) {
	m := fromBytes(t, generateOrders(4<<20))
	m = press(t, m, "/")
	m, _ = m.Update(keyMsg("U"))
	m, _ = m.Update(keyMsg("N"))
	m, cmd := m.Update(keyMsg("Z")) // "UNZ": only the last segment
	if cmd == nil || m.Cursor() != 0 {
		t.Fatalf("typing did not start a search step (cursor %d)", m.Cursor())
	}
	step := cmd().(searchStepMsg)
	m, cmd = m.Update(step)
	if cmd == nil || m.Cursor() != 0 || !strings.Contains(m.View(), "searching for \"UNZ\" …") {
		t.Fatalf("one step went too far: cursor %d cmd %v status %q", m.Cursor(), cmd != nil, m.status)
	}
	next := cmd().(searchStepMsg)
	m = press(t, m, "esc") // leaves the input and goes back to the start
	m, cmd = m.Update(next)
	if cmd != nil || m.Cursor() != 0 {
		t.Fatalf("a cancelled search went on (cursor %d)", m.Cursor())
	}
	// Run to the end: UNZ is the last segment.
	m = press(t, typeText(t, press(t, m, "/"), "UNZ"), "enter")
	if m.Cursor() != m.doc().Len()-1 {
		t.Fatalf("UNZ at %d, want %d", m.Cursor(), m.doc().Len()-1)
	}
}

func TestIssueJumpAndRaw(t *testing.T) {
	m := open(t, fixture("errors/unt_count.edi"))
	issues := m.doc().Issues()
	k := len(issues) - 1 // UNT_COUNT_MISMATCH at the count, after two SEGMENT_MISSING at UNT
	is := issues[k]
	if len(issues) != 3 || is.Code != edi.CodeUNTCountMismatch {
		t.Fatalf("fixture issues: %v", issues)
	}
	segOff := m.doc().Segment(is.Segment).Offset()
	if is.Offset == segOff {
		t.Fatal("the fixture's issue must point inside its segment")
	}
	m = press(t, m, "i")
	v := m.View()
	if !strings.Contains(v, "Issues (3)") || !strings.Contains(v, "UNT_COUNT_MISMATCH [0085:29]") {
		t.Fatalf("issues pane:\n%s", v)
	}
	m = press(t, m, "j", "j", "j", "enter") // j stops at the last issue
	if m.Cursor() != is.Segment {
		t.Fatalf("jump: cursor %d, want %d", m.Cursor(), is.Segment)
	}
	v = m.View()
	if !strings.Contains(v, "Segment "+itoa(is.Segment)+" UNT") || !strings.Contains(v, "✗ UNT_COUNT_MISMATCH") {
		t.Fatalf("details after the jump:\n%s", v)
	}
	// Raw view at the issue's offset, the spot marked with a caret.
	m = press(t, m, "r")
	v = m.View()
	caret := "^ offset " + itoa(is.Offset) + ", byte 0x"
	if !strings.Contains(v, caret) {
		t.Fatalf("raw view lacks %q:\n%s", caret, v)
	}
	// The caret stands under the marked byte: its column is the spot's.
	lines := strings.Split(v, "\n")
	for k, l := range lines {
		if strings.Contains(l, caret) {
			col := strings.Index(l, "^")
			unit := lines[k-1]
			if !strings.HasPrefix(unit, "@"+itoa(segOff)) {
				t.Fatalf("caret not under the segment's line: %q", unit)
			}
			data := m.doc().Data()
			if got, want := unit[col], data[is.Offset]; got != want {
				t.Fatalf("caret under %q, want the spot's byte %q\n%s\n%s", got, want, unit, l)
			}
		}
	}
	// From the issues list, r shows the selected issue's bytes at once.
	if got := press(t, m, "g", "i", "G", "r").View(); !strings.Contains(got, caret) {
		t.Fatalf("r in the issues list:\n%s", got)
	}
	// r again: back to the details; moving away: the raw spot is the segment.
	m = press(t, m, "r")
	if strings.Contains(m.View(), "Raw bytes") {
		t.Fatal("r did not toggle back")
	}
	m = press(t, m, "k", "r")
	if !strings.Contains(m.View(), "^ offset "+itoa(m.doc().Segment(m.Cursor()).Offset())+",") {
		t.Fatalf("raw spot for a segment:\n%s", m.View())
	}
}

// TestCloseThenView: after Close the view shows that it is closed and
// reads nothing; keys do nothing. The file is mapped, so reading it
// after Close would fault.
func TestCloseThenView(t *testing.T) {
	path := writeTemp(t, "big.edi", generateOrders(1<<20))
	m := open(t, path)
	if !m.src.file.Mapped() {
		t.Fatal("the test needs a mapped file")
	}
	m = press(t, m, "G", "r")
	_ = m.View()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(m.Err(), ErrClosed) {
		t.Fatalf("Err after Close: %v", m.Err())
	}
	for _, k := range []string{"k", "g", "/", "i", "r"} {
		m = press(t, m, k)
		if v := m.View(); !strings.Contains(v, "This view is closed") {
			t.Fatalf("after Close and %q:\n%s", k, v)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestShortenedFile: a mapped file shortened while the viewer shows it
// is an error on screen, not a crash.
func TestShortenedFile(t *testing.T) {
	path := writeTemp(t, "big.edi", generateOrders(2<<20))
	m := open(t, path)
	if !m.src.file.Mapped() {
		t.Fatal("the test needs a mapped file")
	}
	_ = m.View()
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	m = press(t, m, "G")
	v := m.View()
	if !errors.Is(m.Err(), edi.ErrFileChanged) || !strings.Contains(v, "the file changed while it was being read") {
		t.Fatalf("Err %v; view:\n%s", m.Err(), v)
	}
	// Searching the broken file does nothing either.
	m = press(t, m, "/", "x", "enter")
	if !strings.Contains(m.View(), "open the file again") {
		t.Fatalf("after a search:\n%s", m.View())
	}
}

// TestSearchShortenedFile: a search step that faults stops the search and
// reports the error to the caller's footer.
func TestSearchShortenedFile(t *testing.T) {
	path := writeTemp(t, "big.edi", generateOrders(2<<20))
	m := open(t, path)
	m = press(t, m, "/")
	m, cmd := m.Update(keyMsg("Z"))
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	m, cmd = m.Update(cmd())
	if cmd == nil {
		t.Fatal("no error for the footer")
	}
	msg := cmd()
	if e, ok := msg.(interface{ Line() string }); !ok || !strings.Contains(e.Line(), "the file changed") {
		t.Fatalf("footer message %#v", msg)
	}
	if !errors.Is(m.Err(), edi.ErrFileChanged) {
		t.Fatalf("Err %v", m.Err())
	}
}

// TestRunesReadTogether: bubbletea reports runes read at once as one
// message ("jjj" from a held key or tmux); each is a key of its own, and
// a "/" among them sends the rest to the search input.
func TestRunesReadTogether(t *testing.T) {
	m := open(t, fixture("contrl_22_rejected.edi"))
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jjj")})
	if m.Cursor() != 3 {
		t.Fatalf("jjj: cursor %d, want 3", m.Cursor())
	}
	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g/ucd")})
	m = drain(t, m, cmd)
	if m.Cursor() != 6 || !m.Capturing() || m.input.Value() != "ucd" {
		t.Fatalf("g/ucd: cursor %d, capturing %v, query %q", m.Cursor(), m.Capturing(), m.input.Value())
	}
	// A paste into the input stays one piece.
	m = press(t, m, "esc", "/")
	m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("unt"), Paste: true})
	m = drain(t, m, cmd)
	if m.input.Value() != "unt" || m.Cursor() != 8 {
		t.Fatalf("paste: query %q cursor %d", m.input.Value(), m.Cursor())
	}
}

// TestEveryFixtureEveryPane walks every fixture (broken ones included)
// and an empty input through every pane and key: no panic, every frame
// exactly the viewer's height and no wider than its width.
func TestEveryFixtureEveryPane(t *testing.T) {
	files, err := filepath.Glob(fixture("*.edi"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(fixture("*/*.edi"))
	files = append(files, more...)
	if len(files) < 40 {
		t.Fatalf("only %d fixtures", len(files))
	}
	models := []Model{fromBytes(t, nil), fromBytes(t, []byte("\r\n"))}
	for _, f := range files {
		models = append(models, open(t, f))
	}
	keys := []string{"j", "G", "r", "k", "i", "j", "enter", "r", "tab", "g", "pgdown", "ctrl+u", "/", "u", "n", "enter", "n", "N", "esc", "i", "esc"}
	for k, m := range models {
		for _, size := range [][2]int{{120, 40}, {60, 16}, {30, 5}} {
			m := m.SetSize(size[0], size[1])
			for _, key := range keys {
				m = press(t, m, key)
				v := m.View()
				lines := strings.Split(v, "\n")
				if len(lines) != size[1] {
					t.Fatalf("model %d at %v after %q: %d lines", k, size, key, len(lines))
				}
				for _, l := range lines {
					if w := ansi.StringWidth(l); w > size[0] {
						t.Fatalf("model %d at %v after %q: line of %d cells: %q", k, size, key, w, l)
					}
				}
			}
		}
	}
}
