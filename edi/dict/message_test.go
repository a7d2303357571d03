package dict

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLookupMessage(t *testing.T) {
	cases := []struct {
		typ, version, release string
		syntax                int
		want                  *Message
		kind                  NoteKind
		text                  string
	}{
		{"ORDERS", "D", "96A", 3, &msgORDERSD96A, NoNote, ""},
		{"ORDRSP", "D", "96A", 4, &msgORDRSPD96A, NoNote, ""},
		{"APERAK", "D", "96A", 2, &msgAPERAKD96A, NoNote, ""},
		{"ORDERS", "D", "24A", 4, &msgORDERSD24A, NoNote, ""},
		{"ORDERS", "D", "25A", 4, &msgORDERSD24A, NoteSubstitute, "D.25A checked with the D.24A structure"},
		{"APERAK", "D", "25A", 3, &msgAPERAKD24A, NoteSubstitute, "D.25A checked with the D.24A structure"},
		{"CONTRL", "2", "2", 3, &msgCONTRLSyntax3, NoNote, ""},
		{"CONTRL", "D", "3", 3, &msgCONTRLSyntax3, NoNote, ""},
		{"CONTRL", "2", "2", 2, &msgCONTRLSyntax3, NoNote, ""},
		{"CONTRL", "4", "1", 4, &msgCONTRLSyntax4, NoNote, ""},
		{"CONTRL", "4", "1", 3, &msgCONTRLSyntax4, NoteSyntaxMismatch, "CONTRL 4:1 under syntax version 3"},
		{"CONTRL", "2", "2", 4, &msgCONTRLSyntax3, NoteSyntaxMismatch, "CONTRL 2:2 under syntax version 4"},
		{"CONTRL", "D", "3", 4, &msgCONTRLSyntax3, NoteSyntaxMismatch, "CONTRL D:3 under syntax version 4"},
		{"CONTRL", "3", "1", 3, &msgCONTRLSyntax3, NoteUnknownVersion, "unknown CONTRL version"},
		{"CONTRL", "\x1b[2J", "", 4, &msgCONTRLSyntax4, NoteUnknownVersion, "unknown CONTRL version"},
	}
	for _, tc := range cases {
		m, note, ok := LookupMessage(tc.typ, tc.version, tc.release, tc.syntax)
		name := tc.typ + " " + tc.version + ":" + tc.release
		require.True(t, ok, name)
		require.Same(t, tc.want, m, name)
		require.Equal(t, tc.kind, note.Kind, name)
		require.Equal(t, tc.kind == NoNote, note.IsZero(), name)
		if tc.text != "" {
			require.Contains(t, note.Text, tc.text, name)
		}
		require.NotContains(t, note.Text, "\x1b", "notes never quote payload data")
	}
	for _, tc := range [][3]string{{"ORDERS", "D", "01B"}, {"DESADV", "D", "01B"}, {"NOSUCH", "D", "96A"}, {"ORDERS", "S", "93A"}, {"", "", ""}} {
		_, _, ok := LookupMessage(tc[0], tc[1], tc[2], 3)
		require.False(t, ok, "%v", tc)
	}
}

// TestMessageEntries checks the derived fields of every structure.
func TestMessageEntries(t *testing.T) {
	require.Len(t, Messages(), 130, "125 D.96A, 3 D.24A, 2 CONTRL")
	for _, m := range Messages() {
		es := m.Entries
		require.Equal(t, "UNH", es[0].Tag, m.Label)
		require.Equal(t, "UNT", es[len(es)-1].Tag, m.Label)
		maxDepth := 0
		for i, e := range es {
			require.Equal(t, (i+1)*10, e.Position, "%s %d", m.Label, i)
			require.Equal(t, tagKey(e.Tag), e.key, "%s %d", m.Label, i)
			require.Greater(t, e.End, i)
			require.LessOrEqual(t, e.End, len(es))
			require.GreaterOrEqual(t, e.MaxRepeat, 1)
			if e.Parent >= 0 {
				p := es[e.Parent]
				require.True(t, p.IsGroup())
				require.Less(t, e.Parent, i)
				require.LessOrEqual(t, e.End, p.End)
				require.Equal(t, p.Depth+1, e.Depth)
				require.Equal(t, p.FullPath, e.FullPath[:strings.LastIndex(e.FullPath, "/")])
				require.Equal(t, p.Path[strings.LastIndex(p.Path, "/")+1:], e.GroupName)
			} else {
				require.Zero(t, e.Depth)
				require.Empty(t, e.GroupName)
			}
			if e.IsGroup() {
				trigger := es[i+1]
				require.Equal(t, trigger.Tag, e.Tag, "%s SG%d trigger", m.Label, e.Group)
				require.True(t, trigger.Mandatory)
				require.Equal(t, 1, trigger.MaxRepeat)
				require.Equal(t, "SG"+itoa(e.Group), e.Path)
				maxDepth = max(maxDepth, e.Depth+1)
			} else {
				require.Equal(t, i+1, e.End)
				if e.GroupName != "" {
					require.Equal(t, e.GroupName+"/"+e.Tag, e.Path)
				} else {
					require.Equal(t, e.Tag, e.Path)
				}
			}
			got, ok := m.PathOf(uint16(i))
			require.True(t, ok)
			require.Same(t, &es[i], got)
		}
		require.Equal(t, maxDepth, m.maxDepth, m.Label)
		_, ok := m.PathOf(NoPath)
		require.False(t, ok)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestKnownStructures pins facts read from the specifications.
func TestKnownStructures(t *testing.T) {
	find := func(m *Message, fullPath string) Entry {
		for _, e := range m.Entries {
			if e.FullPath == fullPath {
				return e
			}
		}
		t.Fatalf("%s: %s not found", m.Label, fullPath)
		return Entry{}
	}
	o := &msgORDERSD96A
	require.Equal(t, Entry{Position: 930, Tag: "LIN", Group: 25, MaxRepeat: 200000, Parent: -1, End: 208, Path: "SG25", FullPath: "SG25", key: tagKey("LIN")}, find(o, "SG25"))
	require.Equal(t, 99, find(o, "SG2").MaxRepeat)
	require.Equal(t, 120, find(o, "SG2/NAD").Position)
	require.True(t, find(o, "UNS").Mandatory)
	require.Equal(t, 2090, find(o, "UNS").Position) // the entry after SG25, index 208
	moa := find(o, "SG54/MOA")
	require.True(t, moa.Mandatory)
	require.Equal(t, 2, moa.MaxRepeat)
	require.Equal(t, 1100, find(o, "SG25/SG26/CCI").Position)
	require.Equal(t, 2160, find(o, "UNT").Position)
	require.Equal(t, "UNTDID D.96A TRMD ORDERS_D.96A, 4.3.1 Segment table", o.Source)

	a := &msgAPERAKD96A
	require.Equal(t, 140, find(a, "SG3/ERC").Position)
	require.Equal(t, 999, find(a, "SG3").MaxRepeat)
	require.Equal(t, 170, find(a, "SG3/SG4/RFF").Position)

	c := &msgCONTRLSyntax4
	require.Equal(t, 999999, find(c, "SG1").MaxRepeat)
	require.Equal(t, 999, find(c, "SG1/SG2").MaxRepeat)
	require.Equal(t, 99, find(c, "SG1/SG2/UCD").MaxRepeat)
	require.Equal(t, 999999, find(c, "SG3/SG4").MaxRepeat)
	require.Equal(t, 0, find(c, "SG3").Depth, "SG3 (UCF) is a sibling of SG1, not nested in SG2")

	require.Equal(t, 20000, find(&msgORDERSD24A, "SG29").MaxRepeat)
	require.Equal(t, "LIN", find(&msgORDERSD24A, "SG29").Tag)
}
