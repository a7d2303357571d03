package dict

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// packForTest encodes a Message the way the generator packs one
// (internal/gen/emit_compact.go), so the decoder can be checked against
// the struct-literal tables.
func packForTest(m *Message) string {
	var b []byte
	for _, e := range m.Entries {
		flags := byte(e.Depth << 4)
		if e.Mandatory {
			flags |= 1
		}
		if e.IsGroup() {
			flags |= 2
		}
		b = append(b, e.Tag...)
		b = append(b, flags, byte(e.MaxRepeat>>16), byte(e.MaxRepeat>>8), byte(e.MaxRepeat))
	}
	return string(b)
}

func TestDecodePackedMatchesLiterals(t *testing.T) {
	for _, lit := range []*Message{&msgORDERSD96A, &msgORDRSPD96A, &msgAPERAKD96A, &msgORDERSD24A} {
		got := decodePacked(&packedMessage{typ: lit.Type, maxDepth: lit.maxDepth, entries: packForTest(lit)})
		require.Equal(t, lit.Entries, got.Entries, lit.Label)
		require.Equal(t, lit.maxDepth, got.maxDepth)
	}
}

func TestEveryD96AMessageHasAStructure(t *testing.T) {
	types := MessageTypes(D96A)
	require.Len(t, types, 125, "the UNTDID D.96A message directory has 125 messages")
	for _, typ := range types {
		m, note, ok := LookupMessage(typ, "D", "96A", 3)
		require.True(t, ok, typ)
		require.True(t, note.IsZero(), typ)
		require.Equal(t, typ, m.Type)
		require.Equal(t, D96A, m.Directory)
		require.Equal(t, "UNH", m.Entries[0].Tag, typ)
		require.Equal(t, "UNT", m.Entries[len(m.Entries)-1].Tag, typ)
		again, _, _ := LookupMessage(typ, "D", "96A", 3)
		require.Same(t, m, again, "decoded once and shared")
		for i, e := range m.Entries {
			require.Equal(t, (i+1)*10, e.Position)
			if e.Parent >= 0 {
				require.True(t, m.Entries[e.Parent].IsGroup())
				require.Greater(t, m.Entries[e.Parent].End, i)
			}
		}
	}
	_, _, ok := LookupMessage("NOSUCH", "D", "96A", 3)
	require.False(t, ok)
}

func TestPackedDESADVandINVOIC(t *testing.T) {
	// Spot checks against the printed TRMD tables of D.96A.
	m, _, ok := LookupMessage("DESADV", "D", "96A", 3)
	require.True(t, ok)
	require.Equal(t, "BGM", m.Entries[1].Tag)
	require.True(t, m.Entries[1].Mandatory)
	inv, _, ok := LookupMessage("INVOIC", "D", "96A", 3)
	require.True(t, ok)
	var lin *Entry
	for i := range inv.Entries {
		if inv.Entries[i].IsGroup() && inv.Entries[i].Tag == "LIN" {
			lin = &inv.Entries[i]
		}
	}
	require.NotNil(t, lin)
	require.Equal(t, "SG25", lin.Path)
	require.Equal(t, 9999999, lin.MaxRepeat)
}

func TestCodeListClosed(t *testing.T) {
	require.True(t, CodeListClosed(D96A, "1225"), "message function: UNCL list, no note")
	require.True(t, CodeListClosed(D96A, "1001"), "document name: its note is about pending codes, not another source")
	require.False(t, CodeListClosed(D96A, "7143"), "item number type: may be used with 1131/3055")
	require.False(t, CodeListClosed(D96A, "3039"), "party id: no list")
	require.False(t, CodeListClosed(D24A, "1225"), "D.24A has no flags")
	require.True(t, CodeListClosed(Service3, "0035"))
	require.False(t, CodeListClosed(Service3, "0065"), "message types are named in a note instead")
}
