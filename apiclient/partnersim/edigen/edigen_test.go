package edigen

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// segments splits an interchange with the default separators, honouring
// the release character; newlines after terminators are dropped.
func segments(t *testing.T, b []byte) [][]string {
	t.Helper()
	require.True(t, bytes.HasPrefix(b, []byte("UNA")))
	b = bytes.TrimLeft(b[9:], "\n")
	var segs [][]string
	var cur []string
	var el strings.Builder
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '?':
			i++
			el.WriteByte(b[i])
		case '+':
			cur = append(cur, el.String())
			el.Reset()
		case '\'':
			segs = append(segs, append(cur, el.String()))
			cur, el = nil, strings.Builder{}
			for i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		default:
			el.WriteByte(c)
		}
	}
	require.Empty(t, cur, "unterminated segment")
	return segs
}

// checkEnvelope verifies counts and references of UNB/UNH/UNT/UNZ and
// returns the segments.
func checkEnvelope(t *testing.T, b []byte) [][]string {
	t.Helper()
	segs := segments(t, b)
	require.Equal(t, "UNB", segs[0][0])
	require.Equal(t, "UNZ", segs[len(segs)-1][0])
	msgs, inMsg, ref := 0, 0, ""
	for _, s := range segs[1 : len(segs)-1] {
		switch s[0] {
		case "UNH":
			require.Zero(t, inMsg, "UNH inside a message")
			msgs++
			inMsg, ref = 1, s[1]
		case "UNT":
			inMsg++
			require.Equal(t, strconv.Itoa(inMsg), s[1], "UNT count")
			require.Equal(t, ref, s[2], "UNT reference")
			inMsg = 0
		default:
			require.NotZero(t, inMsg, "segment %s outside a message", s[0])
			inMsg++
		}
	}
	unz := segs[len(segs)-1]
	require.Equal(t, strconv.Itoa(msgs), unz[1])
	require.Equal(t, segs[0][5], unz[2], "UNZ reference = UNB control reference")
	return segs
}

func find(segs [][]string, tag string) []string {
	for _, s := range segs {
		if s[0] == tag {
			return s
		}
	}
	return nil
}

var at = time.Date(2025, 6, 2, 9, 30, 0, 0, time.UTC)

func env(syntax int) Envelope {
	return Envelope{Syntax: syntax, Sender: "4012345000009", Recipient: "9012345000004", ControlRef: "000000417", Prepared: at}
}

func TestGLNCheckDigit(t *testing.T) {
	for _, ok := range []string{"4006381333931", "4012345000009", "9012345000004", "5901234123457"} {
		require.True(t, ValidGLN(ok), ok)
	}
	for _, bad := range []string{"4006381333932", "400638133393", "40063813339311", "40063813339a1"} {
		require.False(t, ValidGLN(bad), bad)
	}
	g := New(7)
	for range 200 {
		require.True(t, ValidGLN(g.GLN("91")))
	}
}

func TestOrdersAndOrdrspBothDirectories(t *testing.T) {
	for _, dir := range []Directory{D96A, D25A} {
		t.Run(dir.String(), func(t *testing.T) {
			g := New(42)
			buyer := Party{GLN: g.GLN("40"), Name: "Müller Großhandel GmbH", Street: "Hauptstraße 5", City: "Köln", PostCode: "50667", Country: "DE"}
			supplier := Party{GLN: g.GLN("91"), Name: "ACME Österreich GmbH", City: "Wien", PostCode: "1010", Country: "AT"}
			o := g.Order(buyer, supplier, at, 5)
			orders := Orders(dir, env(0), o)
			segs := checkEnvelope(t, orders)
			unb := segs[0]
			if dir == D96A {
				require.Equal(t, "UNOC:3", unb[1])
				require.Equal(t, "250602:0930", unb[4])
				require.Equal(t, "ORDERS:D:96A:UN:EAN008", find(segs, "UNH")[2])
			} else {
				require.Equal(t, "UNOC:4", unb[1])
				require.Equal(t, "20250602:0930", unb[4])
				require.Equal(t, "ORDERS:D:25A:UN:EAN008", find(segs, "UNH")[2])
			}
			require.Equal(t, []string{"BGM", "220", o.Number, "9"}, find(segs, "BGM"))
			require.Equal(t, []string{"CNT", "2:5"}, find(segs, "CNT"))
			require.Contains(t, string(orders), "M\xfcller Gro\xdfhandel", "UNOC text is ISO 8859-1")
			require.NotContains(t, string(orders), "Müller", "no UTF-8 under UNOC")

			answers, status := g.Answers(o)
			rsp := Ordrsp(dir, env(0), Response{Number: "RSP-1", Date: at, Status: status, Order: o, Answers: answers})
			segs = checkEnvelope(t, rsp)
			require.Equal(t, []string{"RFF", "ON:" + o.Number}, find(segs, "RFF"))
			require.Equal(t, []string{"BGM", "231", "RSP-1", status}, find(segs, "BGM"))
			var lins []string
			for _, s := range segs {
				if s[0] == "LIN" {
					lins = append(lins, s[3])
				}
			}
			require.Len(t, lins, 5)
			for i, l := range o.Lines {
				require.Equal(t, l.GTIN+":SRS", lins[i], "same lines as the order")
			}
		})
	}
}

func TestReleaseCharacters(t *testing.T) {
	b := newBuilder(4, false)
	b.seg("FTX", e("AAO"), e(), e(), e("a+b:c'd?e*f"))
	require.Equal(t, "UNA:+.?*'FTX+AAO+++a?+b?:c?'d??e?*f'", b.buf.String())
	b = newBuilder(3, false)
	b.seg("FTX", e("AAO"), e(), e(), e("x*y\x01€"))
	require.Equal(t, "UNA:+.? 'FTX+AAO+++x*y .'", b.buf.String(), "'*' is data under syntax 3")
}

func TestAperak(t *testing.T) {
	for _, dir := range []Directory{D96A, D25A} {
		g := New(3)
		a := Aperak(dir, env(0), ApplicationError{Number: "APK-1", Date: at, OrderNumber: "PO-2025-000123", OrderDate: at,
			From: Party{GLN: g.GLN("91")}, To: Party{GLN: g.GLN("40")}, Errors: []AppError{{"12", "Artikel unbekannt"}, {"13", ""}}})
		segs := checkEnvelope(t, a)
		_, rel := dir.release()
		require.Equal(t, "APERAK:D:"+rel+":UN", find(segs, "UNH")[2])
		require.Equal(t, []string{"BGM", "305::9", "APK-1", "9"}, find(segs, "BGM"))
		require.Equal(t, []string{"ERC", "12"}, find(segs, "ERC"))
		require.Equal(t, []string{"FTX", "AAO", "", "", "Artikel unbekannt"}, find(segs, "FTX"))
	}
}

func TestContrlPerSyntax(t *testing.T) {
	c := Contrl{InterchangeRef: "REF77", Sender: "4012345000009", Recipient: "9012345000004", Action: ActionRejected,
		Messages: []ContrlMessage{{Ref: "1", Type: "ORDERS", Version: "D", Release: "96A", Agency: "UN", Action: ActionRejected,
			Segments: []ContrlSegment{{Position: 4, Error: "13", Elements: []ContrlElement{{Error: "12", Position: 2, Component: 1}}}}}}}
	for _, tc := range []struct {
		syntax     int
		unb, s009  string
		unbDateLen int
	}{{3, "UNOC:3", "CONTRL:2:2:UN", 6}, {4, "UNOC:4", "CONTRL:4:1:UN", 8}} {
		en := env(tc.syntax)
		segs := checkEnvelope(t, ContrlMsg(en, c))
		require.Equal(t, tc.unb, segs[0][1])
		require.Len(t, strings.Split(segs[0][4], ":")[0], tc.unbDateLen)
		require.Equal(t, tc.s009, find(segs, "UNH")[2])
		require.Equal(t, []string{"UCI", "REF77", "4012345000009:14", "9012345000004:14", "4"}, find(segs, "UCI"))
		require.Equal(t, []string{"UCM", "1", "ORDERS:D:96A:UN", "4"}, find(segs, "UCM"))
		require.Equal(t, []string{"UCS", "4", "13"}, find(segs, "UCS"))
		require.Equal(t, []string{"UCD", "12", "2:1"}, find(segs, "UCD"))
	}
	ok := ContrlMsg(env(3), Contrl{InterchangeRef: "R", Sender: "1", Recipient: "2", Action: ActionAcknowledged})
	segs := checkEnvelope(t, ok)
	require.Equal(t, []string{"UCI", "R", "1:14", "2:14", "7"}, find(segs, "UCI"))
	require.Nil(t, find(segs, "UCM"))
}

func TestDeterministic(t *testing.T) {
	mk := func() []byte {
		g := New(99)
		o := g.Order(Party{GLN: g.GLN("40")}, Party{GLN: g.GLN("91")}, at, 3)
		return Orders(D96A, env(0), o)
	}
	require.Equal(t, mk(), mk())
	require.Equal(t, "1234.5", amount(123450))
	require.Equal(t, "0.87", amount(87))
	require.Equal(t, "12", amount(1200))
}

func TestLargeOrdrsp(t *testing.T) {
	g := New(5)
	o := g.Order(Party{GLN: g.GLN("40")}, Party{GLN: g.GLN("43"), Name: "Nordwerk"}, at, 1)
	const size = 1 << 20
	b := g.LargeOrdrsp(D96A, env(0), o, "RSP-BIG", size)
	require.GreaterOrEqual(t, len(b), size)
	require.Less(t, len(b), size+1024)
	segs := checkEnvelope(t, b)
	lins := 0
	for _, s := range segs {
		if s[0] == "LIN" {
			lins++
			require.Equal(t, strconv.Itoa(lins), s[1])
		}
	}
	require.Equal(t, []string{"CNT", "2:" + strconv.Itoa(lins)}, find(segs, "CNT"))
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, g.UUID())
}

// TestOrdrspAnswersAParsedOrder: lines keep the order's numbers, item
// types and quantities as written; answers change quantity, price and
// date, and a rejected line confirms no quantity.
func TestOrdrspAnswersAParsedOrder(t *testing.T) {
	o := Order{Number: "PO-1", Date: at, Lines: []Line{
		{Number: "10", GTIN: "4000862141404", ItemType: "EN", Qty: 0, QtyText: "12.5", Unit: "KGM"},
		{Number: "20", GTIN: "4000862141411", Qty: 12, PriceCents: 125},
		{Number: "30", SupplierArticle: "ART-1", Qty: 3},
	}}
	later := at.AddDate(0, 0, 7)
	rsp := Ordrsp(D96A, env(0), Response{Number: "R", Date: at, Status: StatusChanged, Order: o, Answers: []LineAnswer{
		{Action: LineAccepted, Qty: 0},
		{Action: LineChanged, Qty: 12, PriceCents: 131, Delivery: later},
		{Action: LineRejected},
	}})
	segs := checkEnvelope(t, rsp)
	var got []string
	for _, s := range segs {
		switch s[0] {
		case "LIN", "QTY", "PRI", "DTM", "PIA":
			got = append(got, strings.Join(s, "+"))
		}
	}
	require.Equal(t, []string{
		"DTM+137:202506020930:203", "DTM+171:20250602:102",
		"LIN+10+5+4000862141404:EN", "QTY+21:12.5:KGM", "QTY+113:12.5:KGM",
		"LIN+20+3+4000862141411:SRS", "QTY+21:12:PCE", "QTY+113:12:PCE", "DTM+2:20250609:102", "PRI+AAA:1.31",
		"LIN+30+7", "PIA+1+ART-1:SA", "QTY+21:3:PCE",
	}, got)
}
