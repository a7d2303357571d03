package jsonline

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func members(t *testing.T, in string) (map[string]string, bool) {
	t.Helper()
	out := map[string]string{}
	ok := Fields([]byte(in), func(name []byte, v Value) bool {
		out[string(name)] = string(v.raw)
		return true
	})
	return out, ok
}

func TestFieldsReadsPlainObjects(t *testing.T) {
	got, ok := members(t, " {\"a\":\"x\", \"b\" : -12,\"c\":true,\"d\":null,\"e\":[\"p\", \"q\"],\"f\":[],\"g\":\"Grüße\"}\r\n")
	require.True(t, ok)
	require.Equal(t, map[string]string{"a": `"x"`, "b": "-12", "c": "true", "d": "null", "e": `["p", "q"]`, "f": "[]", "g": `"Grüße"`}, got)
	_, ok = members(t, "{}")
	require.True(t, ok)
}

// What encoding/json must decide is refused, never guessed.
func TestFieldsRefusesWhatItDoesNotRead(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `{`, `{"a":"x"`, `{"a":"x"}x`, `{"a":"x",}`, `{"a" "x"}`, `{a:"x"}`,
		`{"a":"x\"y"}`, `{"a\u0062":"x"}`, `{"a":"tab	in"}`, "{\"a\":\"\xff\"}", `{"a":"x` + "\x00" + `"}`,
		`{"a":1.5}`, `{"a":1e3}`, `{"a":01}`, `{"a":-}`, `{"a":+1}`, `{"a":{"b":1}}`, `{"a":[1]}`, `{"a":["x",]}`,
		`{"a":tru}`, `{"a":nul}`, `{"a":"x"}}`,
	} {
		_, ok := members(t, in)
		require.False(t, ok, "%q", in)
	}
}

func TestValues(t *testing.T) {
	s, ok := Value{raw: []byte(`"x y"`)}.String()
	require.True(t, ok)
	require.Equal(t, "x y", s)
	_, ok = Value{raw: []byte(`12`)}.String()
	require.False(t, ok)
	n, ok := Value{raw: []byte(`-9223372036854775808`)}.Int()
	require.True(t, ok)
	require.Equal(t, int64(-9223372036854775808), n)
	_, ok = Value{raw: []byte(`9223372036854775808`)}.Int()
	require.False(t, ok, "out of range")
	_, ok = Value{raw: []byte(`"1"`)}.Int()
	require.False(t, ok)
	b, ok := Value{raw: []byte(`false`)}.Bool()
	require.True(t, ok)
	require.False(t, b)
	ss, ok := Value{raw: []byte(`[ "a" ,"b"]`)}.Strings()
	require.True(t, ok)
	require.Equal(t, []string{"a", "b"}, ss)
	ss, ok = Value{raw: []byte(`[]`)}.Strings()
	require.True(t, ok)
	require.NotNil(t, ss)
	require.Empty(t, ss)
	tm, ok := Value{raw: []byte(`"2026-03-12T08:00:00.5+01:00"`)}.Time()
	require.True(t, ok)
	require.True(t, tm.Equal(time.Date(2026, 3, 12, 7, 0, 0, 5e8, time.UTC)))
	_, ok = Value{raw: []byte(`"2026-03-12"`)}.Time()
	require.False(t, ok)
	require.True(t, Value{raw: []byte(`null`)}.Null())
}

// What AppendString writes is valid JSON of the same string, and plain
// strings read back on the fast path.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "PO-4711", "Grüße", "a\"b", "back\\slash", "nl\n", "\x00", "\xff\xfe", "<&>", "\u2028"} {
		b := AppendString(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(b, &back), "%q", b)
		std, _ := json.Marshal(s)
		var want string
		require.NoError(t, json.Unmarshal(std, &want))
		require.Equal(t, want, back, "%q", s)
		if got, ok := (Value{raw: b}).String(); ok {
			require.Equal(t, back, got, "%q", s)
		}
	}
	_, ok := Value{raw: AppendString(nil, "PO-4711")}.String()
	require.True(t, ok)
}

// plainString's eight-bytes-at-a-time check says what a byte-by-byte one
// says, for strings of every length and byte.
func TestPlainStringIsByteByByte(t *testing.T) {
	naive := func(s []byte) bool {
		for _, c := range s {
			if c < 0x20 || c == '"' || c == '\\' {
				return false
			}
		}
		return utf8.Valid(s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', 'Z', ' ', 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xa4, 0xff, '\\', '\t', '~'}
	for i := 0; i < 20000; i++ {
		s := make([]byte, r.IntN(40))
		for k := range s {
			s[k] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) > 0 {
				s[k] = 'a' + byte(r.IntN(26))
			}
		}
		b := append(append([]byte{'"'}, s...), '"')
		got, end, ok := plainString(b, 0)
		want := naive(s)
		require.Equal(t, want, ok && end == len(b), "%q", s)
		if ok && end == len(b) {
			require.Equal(t, s, got)
		}
	}
}
