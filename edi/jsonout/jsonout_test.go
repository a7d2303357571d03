package jsonout

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi"
)

// whole is the document marshalled at once (what parse printed before it
// streamed): what the streamed output must equal byte for byte.
func whole(t *testing.T, name string, doc *edi.Document) string {
	t.Helper()
	type document struct {
		File         string        `json:"file"`
		Bytes        int           `json:"bytes"`
		Interchanges []Interchange `json:"interchanges"`
		Issues       []edi.Issue   `json:"issues"`
		Errors       int           `json:"errors"`
		Warnings     int           `json:"warnings"`
		Segments     int           `json:"segments"`
	}
	out := document{File: name, Bytes: len(doc.Data()), Issues: doc.Issues(), Segments: doc.Len(), Interchanges: []Interchange{}}
	if out.Issues == nil {
		out.Issues = []edi.Issue{}
	}
	out.Errors, out.Warnings = doc.IssueCounts()
	for _, ic := range doc.Interchanges {
		j := NewInterchange(ic)
		for _, g := range ic.Groups {
			j.FunctionalGroups = append(j.FunctionalGroups, NewGroup(g))
		}
		for _, m := range ic.Messages {
			j.Messages = append(j.Messages, NewMessage(m))
		}
		out.Interchanges = append(out.Interchanges, j)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	require.NoError(t, err)
	return string(Safe(append(b, '\n')))
}

// TestWriteStreamedSame: the streamed JSON is byte for byte what
// marshalling the whole document gives, on every fixture and on inputs
// with several interchanges, groups, no messages, issues and none
// (moved here from cmd/b2bx's TestParseJSONStreamedSame).
func TestWriteStreamedSame(t *testing.T) {
	inputs := map[string][]byte{
		"empty":        nil,
		"two groups":   []byte("UNB+UNOC:3+S+R+250312:1030+X'UNG+ORDERS+S+R+250312:1030+1+UN+D:96A'UNH+1+ORDERS:D:96A:UN'UNT+2+1'UNE+1+1'UNG+ORDERS+S+R+250312:1030+2+UN+D:96A'UNE+0+2'UNZ+2+X'"),
		"interchanges": []byte(strings.Repeat("UNB+UNOC:3+S+R+250312:1030+X'UNH+1+ORDRSP:D:96A:UN'BGM+231+R+4'UNT+3+1'UNZ+1+X'\n", 3)),
		"no envelope":  []byte("garbage<&>\u202e'"),
	}
	require.NoError(t, filepath.WalkDir(filepath.Join("..", "..", "testdata", "edifact"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".edi") {
			inputs[path], err = os.ReadFile(path)
		}
		return err
	}))
	require.Greater(t, len(inputs), 20)
	for name, data := range inputs {
		doc, err := edi.Parse(data)
		require.NoError(t, err, name)
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		require.NoError(t, Write(context.Background(), w, name, doc, Options{}), name)
		require.NoError(t, w.Flush())
		require.Equal(t, whole(t, name, doc), b.String(), name)
		require.NotContains(t, b.String(), "\u202e", "a bidi override is escaped")
	}
}

// TestAppendString agrees with encoding/json on every byte value.
func TestAppendString(t *testing.T) {
	var all []byte
	for c := 0; c < 0x80; c++ {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain", string(all), "Łódź €", "\u009b\u202e"} {
		var want string
		require.NoError(t, json.Unmarshal(appendJSONString(nil, s), &want))
		require.Equal(t, s, want)
		std, err := json.Marshal(s)
		require.NoError(t, err)
		if !strings.ContainsAny(s, "<>&") {
			require.Equal(t, string(std), string(appendJSONString(nil, s)))
		}
	}
}

// TestPlainASCII agrees with a byte loop for every byte value at every
// position of a word and of the tail.
func TestPlainASCII(t *testing.T) {
	naive := func(b []byte) bool {
		for _, c := range b {
			if c >= 0x7F {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 19; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				require.Equal(t, naive(b), plainASCII(b), "n=%d pos=%d c=%#x", n, pos, c)
			}
		}
		require.True(t, plainASCII([]byte(strings.Repeat("~", n))))
	}
}
