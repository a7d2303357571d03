package dict

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDirectoryFor(t *testing.T) {
	cases := []struct {
		version, release string
		want             Directory
		note             string
		ok               bool
	}{
		{"D", "96A", D96A, "", true},
		{"D", "24A", D24A, "", true},
		{"D", "25A", D24A, "D.25A checked with the D.24A structure", true},
		{"D", "01B", 0, "", false},
		{"S", "93A", 0, "", false},
		{"d", "96a", 0, "", false},
		{"", "", 0, "", false},
	}
	for _, tc := range cases {
		d, note, ok := DirectoryFor(tc.version, tc.release)
		require.Equal(t, tc.want, d, "%s:%s", tc.version, tc.release)
		require.Equal(t, tc.note, note, "%s:%s", tc.version, tc.release)
		require.Equal(t, tc.ok, ok, "%s:%s", tc.version, tc.release)
	}
}

func TestServiceDirectory(t *testing.T) {
	for v, want := range map[int]Directory{0: Service3, 1: Service3, 2: Service3, 3: Service3, 4: Service4, 5: Service4} {
		require.Equal(t, want, ServiceDirectory(v), "syntax %d", v)
	}
}

func TestDirectoryString(t *testing.T) {
	require.Equal(t, "D.96A", D96A.String())
	require.Equal(t, "D.24A", D24A.String())
	require.Equal(t, "service syntax 3", Service3.String())
	require.Equal(t, "service syntax 4", Service4.String())
	require.Equal(t, "no directory", Directory(0).String())
	require.Equal(t, "no directory", Directory(99).String())
}

func TestResolver(t *testing.T) {
	r, note := NewResolver("D", "25A", 4)
	require.Equal(t, Resolver{Dir: D24A, Service: Service4}, r)
	require.Equal(t, "D.25A checked with the D.24A structure", note)

	seg, dir, ok := r.Segment("UNB")
	require.True(t, ok)
	require.Equal(t, Service4, dir)
	require.Equal(t, "Interchange header", seg.Name)
	seg, dir, ok = r.Segment("NAD")
	require.True(t, ok)
	require.Equal(t, D24A, dir)
	require.Equal(t, "Name and address", seg.Name)
	_, _, ok = r.Segment("ZZZ")
	require.False(t, ok)

	e, ok := r.Element("S001")
	require.True(t, ok)
	require.Len(t, e.Components, 5) // syntax 4: 0001 0002 0080 0133 0076
	e, ok = r.Element("C082")
	require.True(t, ok)
	require.Equal(t, "Party identification details", e.Name)

	name, ok := r.CodeName("0083", "7")
	require.True(t, ok)
	require.Equal(t, "This level acknowledged and all lower levels acknowledged if not explicitly rejected", name)
	name, ok = r.CodeName("1225", "9")
	require.True(t, ok)
	require.Equal(t, "Original", name)

	// Unknown message release: service names still resolve, user segments fall back to nothing.
	r3, note := NewResolver("D", "01B", 3)
	require.Empty(t, note)
	require.Equal(t, Resolver{Service: Service3}, r3)
	_, dir, ok = r3.Segment("UNH")
	require.True(t, ok)
	require.Equal(t, Service3, dir)
	_, _, ok = r3.Segment("BGM")
	require.False(t, ok)
	// D.96A carries the 1988 service codes that syntax 3 lists omit.
	r96, _ := NewResolver("D", "96A", 3)
	name, ok = r96.CodeName("0083", "5")
	require.True(t, ok)
	require.Equal(t, "UNB/UNZ accepted", name)
}
