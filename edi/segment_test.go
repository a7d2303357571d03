package edi

import (
	"bytes"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/edi/dict"
	"github.com/stretchr/testify/require"
)

// reserialise rebuilds the input from the index alone: leading gap, then
// every segment's raw bytes, its terminator and the gap after it.
func reserialise(d *Document) []byte {
	var b bytes.Buffer
	b.Write(d.Leading())
	for i := 0; i < d.Len(); i++ {
		s := d.Segment(i)
		b.Write(s.Raw())
		if s.Terminated() {
			b.WriteByte(s.Separators().Segment)
		}
		b.Write(d.GapAfter(i))
	}
	return b.Bytes()
}

// findSeg returns the n-th (0-based) segment with the tag.
func findSeg(t *testing.T, d *Document, tag string, n int) Segment {
	t.Helper()
	for i := 0; i < d.Len(); i++ {
		if s := d.Segment(i); s.Tag() == tag {
			if n == 0 {
				return s
			}
			n--
		}
	}
	t.Fatalf("no %s segment", tag)
	return Segment{}
}

func TestRoundTripFixtures(t *testing.T) {
	for _, f := range []string{
		"orders_d96a.edi", "utf8_orders_d25a.edi", "unob_control.edi", "release_chains.edi",
		"hard_wrapped.edi", "junk_before_unb.edi", "bom.edi", "crlf.edi", "errors/trailing_data.edi",
		"errors/unterminated.edi", "errors/release_dangling.edi", "errors/empty.edi", "errors/una_invalid.edi",
	} {
		data := fixture(t, f)
		require.True(t, bytes.Equal(data, reserialise(mustParse(t, data))), f)
	}
}

func TestSeparators(t *testing.T) {
	tests := []struct {
		file       string
		want       string // UNA order
		fromUNA    bool
		repetition bool
	}{
		{"orders_d96a.edi", ":+.? '", true, false},
		{"ordrsp_d96a.edi", ":+.? '", false, false},
		{"unob_printable.edi", ":+.? '", false, false},
		{"unob_control.edi", "\x1f\x1d.  \x1c", false, false},
		{"repetition_sv4.edi", ":+.?*'", false, true},
		{"utf8_orders_d25a.edi", ":+.? '", true, false}, // syntax 4, UNA position 5 is a space: none
	}
	for _, tt := range tests {
		ic := mustParse(t, fixture(t, tt.file)).Interchanges[0]
		require.Equal(t, tt.want, ic.Separators.String(), tt.file)
		require.Equal(t, tt.fromUNA, ic.Separators.FromUNA, tt.file)
		require.Equal(t, tt.repetition, ic.Separators.HasRepetition, tt.file)
	}
	// UNOB control characters have no release character: '?' is data.
	ic := mustParse(t, fixture(t, "unob_control.edi")).Interchanges[0]
	require.False(t, ic.Separators.HasRelease)
	// Syntax 3 ignores UNA position 5 even when it is not a space.
	d := mustParse(t, []byte("UNA:+.?*'UNB+UNOA:3+S+R+250312:1030+X'UNZ+0+X'"))
	require.False(t, d.Interchanges[0].Separators.HasRepetition)
	d = mustParse(t, []byte("UNA:+.?*'UNB+UNOA:4+S+R+20250312:1030+X'UNZ+0+X'"))
	require.True(t, d.Interchanges[0].Separators.HasRepetition)
	require.Equal(t, ControlSeparators(4).Repetition, byte(0x1E))
}

func TestReleaseChains(t *testing.T) {
	d := mustParse(t, fixture(t, "release_chains.edi"))
	require.Equal(t, "A?B", findSeg(t, d, "BGM", 0).Value(2, 1))
	ftx := findSeg(t, d, "FTX", 0)
	require.Equal(t, "It's here", ftx.Text(4, 1))
	require.Equal(t, "Plus+sign", ftx.Text(5, 1))
	require.Equal(t, 5, ftx.ElementCount())
	ftx = findSeg(t, d, "FTX", 1)
	require.Equal(t, "Ends with release?", ftx.Text(4, 1))
	require.Equal(t, "Next", ftx.Text(5, 1))
	ftx = findSeg(t, d, "FTX", 2)
	require.Equal(t, "Release and quote?'", ftx.Text(4, 1))
	require.Equal(t, "x", ftx.Text(5, 1))
	ftx = findSeg(t, d, "FTX", 3)
	require.Equal(t, "Colon: inside", ftx.Text(4, 1))
	require.Equal(t, "second", ftx.Text(4, 2))
	require.Equal(t, 2, ftx.Element(4).ComponentCount())
	// Raw keeps the escapes; Bytes of an unescaped value is a sub-slice.
	require.Equal(t, "Colon?: inside", string(ftx.Component(4, 1).Raw()))
	unb := findSeg(t, d, "UNB", 0)
	v := unb.Bytes(2, 1)
	require.Equal(t, "SENDER", string(v))
	require.Equal(t, &d.Data()[unb.Offset()+len("UNB+UNOC:3+")], &v[0], "no copy without release characters")
}

func TestRepetitionSyntax4(t *testing.T) {
	ftx := findSeg(t, mustParse(t, fixture(t, "repetition_sv4.edi")), "FTX", 0)
	el := ftx.Element(4)
	require.Equal(t, 2, el.RepetitionCount())
	require.Equal(t, "first line", el.Repetition(0).Component(1).Text())
	require.Equal(t, "second line", ftx.Text(4, 2))
	require.Equal(t, "third* not a repetition", el.Repetition(1).Component(1).Text())
	require.Equal(t, "fourth", el.Repetition(1).Component(2).Text())
	require.True(t, el.Repetition(2).IsEmpty())
	// Without a repetition separator '*' is plain data.
	d := mustParse(t, []byte("UNB+UNOA:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'FTX+AAI+++A*B'UNT+3+1'UNZ+1+X'"))
	require.Equal(t, 1, findSeg(t, d, "FTX", 0).Element(4).RepetitionCount())
	require.Equal(t, "A*B", findSeg(t, d, "FTX", 0).Text(4, 1))
}

func TestUNOBControlCharacters(t *testing.T) {
	d := mustParse(t, fixture(t, "unob_control.edi"))
	require.Equal(t, 7, d.Len())
	bgm := findSeg(t, d, "BGM", 0)
	require.Equal(t, "What? It's 50% off", bgm.Text(2, 1))
	require.Equal(t, "SENDER", d.Interchanges[0].Sender.ID)
	require.Equal(t, "14", d.Interchanges[0].Sender.Qualifier)
	require.Equal(t, "BGM^]220^]What? It's 50% off^]9", bgm.Display())
}

func TestHardWrapped(t *testing.T) {
	d := mustParse(t, fixture(t, "hard_wrapped.edi"))
	ic := d.Interchanges[0]
	require.Equal(t, "RECEIVER", ic.Recipient.ID)
	require.Equal(t, "14", ic.Recipient.Qualifier, "a line break splitting \"14\" is layout")
	ftx := findSeg(t, d, "FTX", 0)
	require.Equal(t, "WRAP AT RELEASE'S END", ftx.Text(4, 1), "release char and quote split by a line break")
	require.Contains(t, string(ftx.Raw()), "\r\n", "Raw keeps the bytes")
	require.Equal(t, 6, ic.Messages[0].Segments())
}

func TestSegmentView(t *testing.T) {
	data := fixture(t, "orders_d96a.edi")
	d := mustParse(t, data)
	require.Equal(t, 18, d.Len())
	una := d.Segment(0)
	require.True(t, una.IsUNA())
	require.Equal(t, "UNA", una.Tag())
	require.Equal(t, 0, una.ElementCount())
	require.True(t, una.Element(1).IsEmpty())

	nad := findSeg(t, d, "NAD", 0)
	require.Equal(t, 6, nad.Index())
	require.Equal(t, bytes.Index(data, []byte("NAD+BY")), nad.Offset())
	require.Equal(t, 5, nad.Number(), "UNH is 1")
	require.Equal(t, 0, nad.Message())
	require.Equal(t, "NAD", nad.Element(0).Value().Text())
	require.Equal(t, 9, nad.ElementCount())
	require.Equal(t, "BY", nad.Value(1, 1))
	require.Equal(t, "4012345000009", nad.Value(2, 1))
	require.Equal(t, "", nad.Value(2, 2))
	require.Equal(t, "9", nad.Value(2, 3))
	require.Equal(t, 3, nad.Element(2).ComponentCount())
	require.Equal(t, "Müller Großhandel GmbH", nad.Text(4, 1), "UNOC is ISO 8859-1")
	require.Equal(t, "M\xfcller Gro\xdfhandel GmbH", nad.Value(4, 1), "Value keeps the interchange bytes")
	require.Equal(t, "Köln", nad.Text(6, 1))
	for _, e := range []int{-1, 10, 1000} {
		require.True(t, nad.Element(e).IsEmpty())
		require.Equal(t, "", nad.Text(e, 1))
	}
	require.Equal(t, "", nad.Text(1, 0))
	require.Equal(t, "", nad.Text(1, 7))
	require.Equal(t, CharsetLatin1, nad.Charset())
	require.Equal(t, bytes.Index(data, []byte("4012345000009::9++M")), nad.ElementOffset(2))

	unb := d.Segment(1)
	require.Equal(t, 0, unb.Number())
	require.Equal(t, -1, unb.Message())
	require.Panics(t, func() { d.Segment(18) })
	require.Panics(t, func() { d.Segment(-1) })
}

func TestInterchangeFacts(t *testing.T) {
	d := mustParse(t, fixture(t, "orders_d96a.edi"))
	require.Len(t, d.Interchanges, 1)
	ic := d.Interchanges[0]
	require.True(t, ic.HasUNA && ic.HasUNB && ic.HasUNZ)
	require.Equal(t, "UNOC", ic.SyntaxID)
	require.Equal(t, 3, ic.SyntaxVersion)
	require.Equal(t, CharsetLatin1, ic.Charset)
	require.Equal(t, Party{ID: "4012345000009", Qualifier: "14"}, ic.Sender)
	require.Equal(t, Party{ID: "4098765000003", Qualifier: "14"}, ic.Recipient)
	require.Equal(t, "250312", ic.PreparedDate)
	require.Equal(t, "1030", ic.PreparedTime)
	require.Equal(t, time.Date(2025, 3, 12, 10, 30, 0, 0, time.UTC), ic.PreparedAt)
	require.Equal(t, "ICR0001", ic.ControlRef)
	require.Equal(t, "ORDERS", ic.AppRef)
	require.Equal(t, 1, ic.TrailerCount)
	require.Equal(t, "ICR0001", ic.TrailerRef)
	require.Equal(t, 0, ic.First)
	require.Equal(t, 17, ic.Last)
	require.Len(t, ic.Messages, 1)
	m := ic.Messages[0]
	require.NotNil(t, m.Summary())
	require.Same(t, d, m.doc)
	require.Equal(t, "ORDERS D.96A", m.structure.Label)
	m.structure, m.resolver, m.doc = nil, dict.Resolver{}, nil
	require.Equal(t, Message{
		Index: 0, Interchange: 0, Group: -1, First: 2, Last: 16, Offset: m.Offset, Closed: true,
		Ref: "M0001", Type: "ORDERS", Version: "D", Release: "96A", Agency: "UN", Association: "EAN008",
		TrailerCount: 15, TrailerRef: "M0001", Structure: "ORDERS D.96A", Directory: "D96A",
	}, m)
	require.Equal(t, 15, m.Segments())
	require.Equal(t, 0, d.MessageOf(2))
	require.Equal(t, 0, d.MessageOf(16))
	require.Equal(t, -1, d.MessageOf(17))
	require.Equal(t, 0, d.InterchangeOf(17))
	require.Equal(t, -1, d.InterchangeOf(18))
}

func TestGroups(t *testing.T) {
	d := mustParse(t, fixture(t, "groups_ung_une.edi"))
	ic := d.Interchanges[0]
	require.Len(t, ic.Groups, 2)
	require.Len(t, ic.Messages, 3)
	g := ic.Groups[0]
	require.Equal(t, "ORDERS", g.ID)
	require.Equal(t, "G1", g.Ref)
	require.Equal(t, "UN", g.Agency)
	require.Equal(t, "D", g.Version)
	require.Equal(t, "96A", g.Release)
	require.Equal(t, Party{ID: "SENDER", Qualifier: "14"}, g.Sender)
	require.True(t, g.Closed)
	require.Equal(t, 2, g.TrailerCount)
	require.Len(t, g.Messages, 2)
	require.Equal(t, "2", g.Messages[1].Ref)
	require.Equal(t, 1, ic.Groups[1].Messages[0].Group)
	require.Equal(t, "INVOIC", ic.Groups[1].Messages[0].Type)
	require.Equal(t, 2, ic.TrailerCount)
}

func TestMultipleInterchangesKeepTheirDialects(t *testing.T) {
	a := "UNA:+,? 'UNB+UNOC:3+A+B+250312:1030+R1'UNH+1+ORDERS:D:96A:UN'FTX+AAI+++1,5 ?'x?''UNT+3+1'UNZ+1+R1'\n"
	b := "UNB\x1dUNOB\x1f3\x1dC\x1dD\x1d250312\x1f1030\x1dR2\x1cUNH\x1d1\x1dORDERS\x1fD\x1f96A\x1fUN\x1cUNT\x1d2\x1d1\x1cUNZ\x1d1\x1dR2\x1c"
	d := mustParse(t, []byte(a+b))
	require.Empty(t, envelopeIssues(d))
	require.Len(t, d.Interchanges, 2)
	require.Equal(t, byte(','), d.Interchanges[0].Separators.Decimal)
	require.Equal(t, "1,5 'x'", findSeg(t, d, "FTX", 0).Text(4, 1))
	require.Equal(t, byte(0x1D), d.Interchanges[1].Separators.Element)
	require.Equal(t, "C", d.Interchanges[1].Sender.ID)
	require.Equal(t, "ORDERS", d.Messages[1].Type)
	require.Equal(t, []byte(a+b), reserialise(d))
}

func TestBareAndJunk(t *testing.T) {
	d := mustParse(t, fixture(t, "bare_message.edi"))
	require.Len(t, d.Interchanges, 1)
	require.False(t, d.Interchanges[0].HasUNB)
	require.Equal(t, "BARE-1", d.Segment(1).Text(2, 1))
	require.Equal(t, CharsetUnknown, d.Segment(1).Charset())

	data := fixture(t, "junk_before_unb.edi")
	d = mustParse(t, data)
	require.Equal(t, 50, d.Segment(0).Offset())
	require.Equal(t, data[:50], d.Leading())
	require.Equal(t, []byte("\r\n"), d.GapAfter(0))
	require.Equal(t, "JUNK1", d.Interchanges[0].ControlRef)

	d = mustParse(t, fixture(t, "bom.edi"))
	require.Equal(t, []byte{0xEF, 0xBB, 0xBF}, d.Leading())
	require.Equal(t, "BOM1", d.Interchanges[0].ControlRef)
}

func TestDisplaySanitises(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOC:3+S+R+250312:1030+X'UNH+1+ORDERS:D:96A:UN'FTX+AAI+++evil\x1b]0;pwn\x07 \x9b2J'UNT+3+1'UNZ+1+X'"))
	ftx := findSeg(t, d, "FTX", 0)
	require.Equal(t, "evil\x1b]0;pwn\x07 \u009b2J", ftx.Text(4, 1), "Text decodes but does not sanitise")
	require.Equal(t, "evil^[]0;pwn^G <U+009B>2J", ftx.DisplayText(4, 1))
	require.NotContains(t, ftx.Display(), "\x1b")
}

func TestSizeLimit(t *testing.T) {
	require.NoError(t, checkSize(1<<20))
	require.ErrorIs(t, checkSize(1<<32), ErrTooLarge)
}

func TestJunkBetweenInterchanges(t *testing.T) {
	a := "UNB+UNOA:3+S+R+250312:1030+A1'UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNZ+1+A1'\n"
	junk := "-- next message --\n"
	b := "UNB+UNOA:3+S+R+250312:1030+B1'UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNZ+1+B1'\n"
	data := []byte(a + junk + b)
	d := mustParse(t, data)
	require.Len(t, d.Interchanges, 2)
	require.Equal(t, []Code{CodeJunk}, envelopeCodes(d))
	require.Equal(t, len(a), envelopeIssues(d)[0].Offset)
	require.Equal(t, []byte("\n"+junk), d.GapAfter(3))
	require.Equal(t, "B1", d.Interchanges[1].ControlRef)
	require.True(t, bytes.Equal(data, reserialise(d)))
}

func TestDialectEdgeCases(t *testing.T) {
	// LF as segment terminator: line breaks are then data structure, not layout.
	d := mustParse(t, []byte("UNA:+.? \nUNB+UNOA:3+S+R+250312:1030+X\nUNH+1+ORDERS:D:96A:UN\nUNT+2+1\nUNZ+1+X\n"))
	require.Empty(t, envelopeIssues(d))
	require.Equal(t, 5, d.Len())
	require.Equal(t, byte('\n'), d.Interchanges[0].Separators.Segment)

	// Level B control characters under syntax 4: IS2 separates repetitions.
	d = mustParse(t, []byte("UNB\x1dUNOB\x1f4\x1dS\x1dR\x1d20250312\x1f1030\x1dX\x1cUNH\x1d1\x1dORDERS\x1fD\x1f01B\x1fUN\x1c"+
		"FTX\x1dAAI\x1d\x1d\x1dA\x1eB\x1cUNT\x1d3\x1d1\x1cUNZ\x1d1\x1dX\x1c"))
	require.Empty(t, d.Issues())
	ftx := findSeg(t, d, "FTX", 0)
	require.Equal(t, 2, ftx.Element(4).RepetitionCount())
	require.Equal(t, "B", ftx.Element(4).Repetition(1).Component(1).Text())

	// A new UNB before UNZ: the first interchange is closed with UNZ_MISSING.
	d = mustParse(t, []byte("UNB+UNOA:3+S+R+250312:1030+A'UNH+1+ORDERS:D:96A:UN'UNT+2+1'"+
		"UNB+UNOA:3+S+R+250312:1030+B'UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNZ+1+B'"))
	require.Equal(t, []Code{CodeUNZMissing}, envelopeCodes(d))
	require.Contains(t, envelopeIssues(d)[0].Message, "before the next interchange; expected UNZ+1+A after segment 2")
	require.Len(t, d.Interchanges, 2)
	require.Equal(t, 2, d.Interchanges[0].Last)
}

// TestQuickBytes agrees with Segment.Bytes on every element and component
// of the fixtures, with and without release characters, line breaks and
// repetitions.
func TestQuickBytes(t *testing.T) {
	for _, name := range []string{"orders_d96a.edi", "release_chains.edi", "hard_wrapped.edi", "repetition_sv4.edi", "unob_control.edi", "contrl_41.edi"} {
		d := mustParse(t, fixture(t, name))
		for i := 0; i < d.Len(); i++ {
			s := d.Segment(i)
			for e := 0; e <= s.ElementCount()+1; e++ {
				for c := 0; c <= 4; c++ {
					require.Equal(t, string(s.Bytes(e, c)), string(d.quickBytes(i, e, c)), "%s segment %d %d:%d", name, i, e, c)
				}
			}
		}
	}
}

func TestCharText(t *testing.T) {
	for c, want := range map[byte]string{'\'': `"'"`, '+': `"+"`, '"': `'"'`, ' ': `" " (space)`, 0x1c: "0x1C", 0: "0x00", 0xe4: "0xE4"} {
		require.Equal(t, want, charText(c))
	}
	d, _ := Parse([]byte("UNA:+.? 'UNB+UNOC:3+A+B+250101:1200+1'UNZ+0+1"))
	var msg string
	for _, is := range d.Issues() {
		if is.Code == CodeUnterminated {
			msg = is.Message
		}
	}
	require.Contains(t, msg, `segment terminator "'"`)
}
