package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "ORDERS 4711", "ORDERS 4711"},
		{"latin", "Müller GmbH ÄÖÜß", "Müller GmbH ÄÖÜß"},
		{"cyrillic", "Москва", "Москва"},
		{"osc0 title", "a\x1b]0;pwned\x07b", "a^[]0;pwned^Gb"},
		{"osc52 clipboard", "\x1b]52;c;ZXZpbA==\x1b\\", "^[]52;c;ZXZpbA==^[\\"},
		{"csi clear", "\x1b[2Jx", "^[[2Jx"},
		{"carriage return", "ok\rEVIL", "ok^MEVIL"},
		{"backspace", "abc\b\b\bxyz", "abc^H^H^Hxyz"},
		{"newline tab", "a\nb\tc", "a^Jb^Ic"},
		{"nul del", "\x00\x7f", "^@^?"},
		{"c1 csi", "x\u009b2Jy", "x<U+009B>2Jy"},
		{"c1 osc", "\u009d0;t\u009c", "<U+009D>0;t<U+009C>"},
		{"rlo", "invoice\u202Efdp.exe", "invoice<U+202E>fdp.exe"},
		{"isolates", "\u2066a\u2069", "<U+2066>a<U+2069>"},
		{"zero width", "a\u200bb\ufeff", "a<U+200B>b<U+FEFF>"},
		{"line separator", "a\u2028b", "a<U+2028>b"},
		{"invalid utf8", "a\xffb\xc3", "a\ufffdb\ufffd"},
		{"latin1 raw byte", "M\xfcller", "M\ufffdller"},
		{"overlong", "\xc0\xaf", "\ufffd\ufffd"},
		{"astral ok", "😀", "😀"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, String(tc.in))
			require.Equal(t, tc.want, Bytes([]byte(tc.in)))
		})
	}
}

func TestNoAllocWhenSafe(t *testing.T) {
	s := "UNB+UNOC:3+4012345000009:14'"
	allocs := testing.AllocsPerRun(100, func() { _ = String(s) })
	require.Zero(t, allocs)
	require.True(t, IsSafe(s))
	require.False(t, IsSafe("a\x1b"))
}

func TestRune(t *testing.T) {
	require.Equal(t, "^[", Rune(0x1b))
	require.Equal(t, "<U+009B>", Rune(0x9b))
	require.Equal(t, "é", Rune('é'))
}

// assertSafe fails when out contains anything a terminal would interpret.
func assertSafe(t testing.TB, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8 in output %q", out)
	}
	for _, r := range out {
		if r < 0x20 || r == 0x7f || Dangerous(r) {
			t.Fatalf("control rune %U survived in %q", r, out)
		}
	}
}

func FuzzSanitise(f *testing.F) {
	for _, s := range []string{"", "\x1b]52;c;x\x07", "\u009b", "\u202e", "\xff\xfe", "a\r\nb", strings.Repeat("\x1b", 3)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Bytes(in)
		assertSafe(t, out)
		require.Equal(t, out, String(string(in)))
		// Idempotent: sanitising safe output changes nothing.
		require.Equal(t, out, String(out))
	})
}
