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

// whole is the document marshalled at once: what the streamed output
// must equal byte for byte (the same check as cmd/b2bx's
// TestParseJSONStreamedSame, here on the package's own API).
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

func TestWriteStreamedSame(t *testing.T) {
	inputs := map[string][]byte{
		"empty":       nil,
		"no envelope": []byte("garbage<&>\u202e'"),
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
