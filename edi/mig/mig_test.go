package mig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi"
)

var demo = filepath.Join("..", "..", "testdata", "mig", "demo.toml")

func parse(t *testing.T, s string) *edi.Document {
	t.Helper()
	d, err := edi.Parse([]byte(s))
	require.NoError(t, err)
	return d
}

const head = "UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'"

func texts(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Where+" "+f.Text)
	}
	return out
}

// TestDemoRules: every kind of rule of the demo partner's file, with the
// finding naming the rule's file and line.
func TestDemoRules(t *testing.T) {
	rs, err := Load(demo)
	require.NoError(t, err)
	require.Len(t, rs.Rules, 5)
	clean := head + "BGM+220+PO-1+9'DTM+137:20250312:102'DTM+2:20250320:102'NAD+BY+4012345000009::9'NAD+DP+4012345000016::9'LIN+1++4000862141404:SRS'QTY+21:4'UNS+S'UNT+9+1'UNZ+1+R'"
	require.Empty(t, rs.Check(parse(t, clean)))

	bad := head + "BGM+220+X-1+9'DTM+137:20250312:102'DTM+2:20250320:102'DTM+2:20250321:102'NAD+BY+4012345000009::9'NAD+IV+4012345000009::9'LIN+1++4000862141404:SRS'QTY+59:4'UNS+S'UNT+10+1'UNZ+1+R'"
	got := texts(rs.Check(parse(t, bad)))
	require.Equal(t, []string{
		demo + `:26 BGM (segment 2 of ORDERS "1") element 1004 "X-1" does not have the partner's format ^PO-[0-9]+$ (order numbers are PO- and digits)`,
		demo + `:20 QTY (segment 9 of ORDERS "1") element 6063 "59" is not one of the codes the partner allows: 21 (ordered quantities only)`,
		demo + `:5 ORDERS "1" has 0 NAD+DP; the partner requires at least 1 (every order names its delivery party)`,
		demo + `:10 ORDERS "1" has 2 DTM+2; the partner allows at most 1 (one requested delivery date)`,
		demo + `:15 ORDERS "1" has 1 NAD+IV, which the partner forbids (invoices go to the buyer; an invoicee is set up in the master data)`,
	}, got)
}

// TestLoadErrors: a bad rules file is refused with its file and line.
func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"toml", "partner = \"x\"\n[[rule]]\nsegment = \n", "r.toml:3: not valid TOML"},
		{"unknown key", "[[rule]]\nsegment = \"NAD+DP\"\nmin = 1\n\n[[rule]]\nsegment = \"QTY\"\nelemnt = \"6063\"\n", `r.toml:7: unknown key "rule.elemnt"`},
		{"bad tag", "[[rule]]\nsegment = \"nad\"\nmin = 1\n", `r.toml:1: segment "nad": write a segment tag of three capitals`},
		{"nothing said", "\n[[rule]]\nsegment = \"NAD\"\n", "r.toml:2: rule for NAD says nothing"},
		{"min over max", "[[rule]]\nsegment = \"NAD\"\nmin = 2\nmax = 1\n", "r.toml:1: min 2 is more than max 1"},
		{"both", "[[rule]]\nsegment = \"QTY\"\nmax = 1\nelement = \"6063\"\ncodes = [\"21\"]\n", "r.toml:1: a rule either counts segments"},
		{"no element", "[[rule]]\nsegment = \"QTY\"\nelement = \"9999\"\ncodes = [\"21\"]\n", `r.toml:1: segment QTY has no data element "9999" in D.96A or D.25A`},
		{"regexp", "[[rule]]\nsegment = \"BGM\"\nelement = \"1004\"\nformat = \"(\"\n", `r.toml:1: format "(" is not a regular expression`},
		{"type", "[[rule]]\nsegment = \"BGM\"\nmin = \"one\"\n", "r.toml:3: not a rules file"},
		{"codes without element", "[[rule]]\nsegment = \"QTY\"\ncodes = [\"21\"]\n", "r.toml:1: codes and format need the element"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("r.toml", []byte(tt.file))
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.toml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestD25A: one rule serves D.96A and D.25A (BGM 1004 is C106 from D.01B on).
func TestD25A(t *testing.T) {
	rs, err := Parse("r.toml", []byte("[[rule]]\nsegment = \"BGM\"\nelement = \"1004\"\nformat = \"^PO-\"\n"))
	require.NoError(t, err)
	d := parse(t, "UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+R'UNH+1+ORDERS:D:25A:UN'BGM+220+X-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'UNZ+1+R'")
	require.Len(t, rs.Check(d), 1)
}

// TestValueMatchesSegment: the raw-byte reading of a value (plain or
// with release characters and line breaks) is what edi.Segment.Bytes
// reads, for every element and component, present or not.
func TestValueMatchesSegment(t *testing.T) {
	doc := parse(t, "UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250312:1030+R'UNH+1+ORDERS:D:96A:UN'"+
		"BGM+220+PO-1+9'NAD+DP+4012345000016::9++A?+B?:C:D'FTX+AAA+++a?'b:c\r\n d++e'QTY+21:4'QTY+:4'QTY+21'UNT+6+1'UNZ+1+R'")
	plain := 0
	for i := 0; i < doc.Len(); i++ {
		if _, ok := doc.TagAt(i); !ok {
			continue // the UNA: Check never reads it
		}
		s := segRef{doc: doc, i: i}
		s.raw, s.sp, s.plain = doc.PlainAt(i)
		if s.plain {
			plain++
		}
		seg := doc.Segment(i)
		for e := 0; e <= 7; e++ {
			for c := 1; c <= 4; c++ {
				require.Equal(t, string(seg.Bytes(e, c)), string(value(s, e, c)), "segment %d %q element %d:%d", i, s.raw, e, c)
			}
		}
	}
	require.Greater(t, plain, 4)
}
