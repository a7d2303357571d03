package viewer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/nutrab2b/b2bx/edi/jsonout"
	"github.com/nutrab2b/b2bx/internal/export"
)

// ErrExportJSON: the viewer's :export writes the JSON of `b2bx parse
// --json`, so the file must be named .json.
var ErrExportJSON = errors.New("the viewer exports the document as JSON, the same as b2bx parse --json: name the file .json; nothing was written")

// Exporter implements common.Exporter: `:export PATH.json` writes the
// document as `b2bx parse --json` does (interchanges, groups, messages,
// issues, counts). The JSON is made here, on the UI goroutine that owns
// the file (the mapping is read only while open, inside edi.Guard); the
// returned function only writes it, atomically and never over a file
// without `:export!`.
func (m Model) Exporter() func(path string, force bool) (string, error) {
	var buf bytes.Buffer
	var werr error
	err := m.src.read(func() {
		w := bufio.NewWriter(&buf)
		if werr = jsonout.Write(context.Background(), w, m.src.Name(), m.doc(), jsonout.Options{}); werr == nil {
			werr = w.Flush()
		}
	})
	if err == nil {
		err = werr
	}
	data := buf.Bytes()
	return func(path string, force bool) (string, error) {
		if err != nil {
			return "", err
		}
		if f, ferr := export.FormatOf(path); ferr != nil || f != export.JSON {
			return "", ErrExportJSON
		}
		if werr := export.WriteFile(path, force, func(w io.Writer) error { _, e := w.Write(data); return e }); werr != nil {
			return "", werr
		}
		return "the document as b2bx parse --json", nil
	}
}
