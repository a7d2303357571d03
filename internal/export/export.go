// Package export writes a table (a mailbox page, the backlog, the upload
// history, find results, event findings) to a CSV or JSON file chosen by
// the path's extension, for `:export PATH` in the app and its
// command-line twins.
//
// Every write is atomic: the bytes go to a temporary file in the target
// directory, are synced, and only then take the target's name, so a
// reader never sees half a file and a failed write leaves nothing
// behind. An existing file is kept unless the caller forces the write
// (`:export! PATH`). Cells go through the one sanitiser (termsafe: control
// characters and bidi overrides become visible escapes) and, in CSV, a
// cell that a spreadsheet would run as a formula (starting with = + - @)
// is prefixed with an apostrophe (tab and carriage return, the other
// formula starters, are already made visible as ^I and ^M). Spreadsheets
// do not agree on the separator (a comma in en-US, a semicolon in de-DE,
// de-AT, fr and nl, a tab on paste), so a CSV cell holding any of them is
// always quoted, and a formula start after one gets the apostrophe too
// ("X;=1+1" is written "X;'=1+1"): a reader that splits on the wrong
// separator still gets no formula. The package imports no UI code.
package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Table is the shape every exportable screen gives: a name (what the
// table is, e.g. "mailbox"), column names and rows of cells. A row with
// fewer cells than columns is padded with empty ones.
type Table struct {
	Name    string
	Columns []string
	Rows    [][]string
}

// Only is t with just the rows at the given indexes, in the order given
// (a marked set); indexes out of range are skipped.
func (t Table) Only(rows []int) Table {
	out := Table{Name: t.Name, Columns: t.Columns}
	for _, i := range rows {
		if i >= 0 && i < len(t.Rows) {
			out.Rows = append(out.Rows, t.Rows[i])
		}
	}
	return out
}

// Format is a file format.
type Format string

// Formats, chosen by extension.
const (
	CSV  Format = "csv"
	JSON Format = "json"
)

// Errors of an export. Each says that nothing was written.
var (
	// ErrExists: the file exists and the write was not forced.
	ErrExists = errors.New("the file exists")
	// ErrFormat: the extension names no format.
	ErrFormat = errors.New("unknown export format")
)

// FormatOf chooses the format by the path's extension: .csv or .json
// (any case).
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, nil
	case ".json":
		return JSON, nil
	}
	return "", fmt.Errorf("%w: %s does not end in .csv or .json; nothing was written: name the file .csv or .json", ErrFormat, termsafe.String(path))
}

// WriteTable writes t to path in the format its extension names. Without
// force an existing file is not replaced (ErrExists).
func WriteTable(path string, t Table, force bool) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	return WriteFile(path, force, func(w io.Writer) error {
		if f == CSV {
			return EncodeCSV(w, t)
		}
		return EncodeJSON(w, t)
	})
}

// EncodeCSV writes t as CSV (RFC 4180, lines ending in LF): a header
// line of the column names, then one line per row, every cell sanitised
// and neutralised (see CSVCell) and quoted when it holds a separator any
// common locale uses (see csvNeedsQuotes).
func EncodeCSV(w io.Writer, t Table) error {
	var b bytes.Buffer
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		writeCSVField(&b, CSVCell(c))
	}
	b.WriteByte('\n')
	for _, r := range t.Rows {
		for i := range t.Columns {
			if i > 0 {
				b.WriteByte(',')
			}
			if i < len(r) {
				writeCSVField(&b, CSVCell(r[i]))
			}
		}
		b.WriteByte('\n')
		if b.Len() > 1<<16 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeCSVField writes one cell, quoted (inner quotes doubled) when it
// needs to be.
func writeCSVField(b *bytes.Buffer, s string) {
	if !csvNeedsQuotes(s) {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// csvNeedsQuotes: the cell holds a separator of some locale's CSV (comma,
// semicolon, tab), a quote, a line break (CR, LF, U+2028, U+2029), or
// starts or ends with a space (some readers trim unquoted cells). The
// encoding/csv writer quotes only for a comma, which leaves "a;b" one cell
// for us and two for a spreadsheet set to ';'.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' || s == `\.` {
		return true
	}
	return strings.ContainsAny(s, ",;\t\"\r\n\u2028\u2029")
}

// EncodeJSON writes t as {"table": name, "columns": [...], "rows":
// [{column: cell, ...}, ...]}, keys in column order, cells sanitised.
func EncodeJSON(w io.Writer, t Table) error {
	var b bytes.Buffer
	b.WriteString("{\n  \"table\": ")
	writeJSONString(&b, t.Name)
	b.WriteString(",\n  \"columns\": [")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		writeJSONString(&b, termsafe.String(c))
	}
	b.WriteString("],\n  \"rows\": [")
	for k, r := range t.Rows {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {")
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(&b, termsafe.String(c))
			b.WriteString(": ")
			v := ""
			if i < len(r) {
				v = r[i]
			}
			writeJSONString(&b, termsafe.String(v))
		}
		b.WriteByte('}')
		if b.Len() > 1<<16 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	if len(t.Rows) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeJSONString writes s as a JSON string: plain printable ASCII
// without quote or backslash as it is, anything else through
// encoding/json.
func writeJSONString(b *bytes.Buffer, s string) {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
}

// CSVCell is a cell as CSV exports write it: sanitised by termsafe, and
// prefixed with an apostrophe when a spreadsheet would take it for a
// formula (it starts with = + - @), so "=HYPERLINK(...)" from a payload
// stays text. A formula start right after a separator of any locale
// (comma, semicolon, tab; spaces between them skipped) gets the apostrophe
// as well, so a reader splitting "X;=1+1" on ';' sees "X" and "'=1+1".
func CSVCell(s string) string {
	s = termsafe.String(s)
	if s == "" {
		return s
	}
	var b strings.Builder
	start := 0
	if isFormulaStart(s[0]) {
		b.Grow(len(s) + 1)
		b.WriteByte('\'')
	}
	for i := 0; i < len(s); i++ {
		if !isSeparator(s[i]) {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) && isFormulaStart(s[j]) {
			b.WriteString(s[start:j])
			b.WriteByte('\'')
			start = j
		}
	}
	if start == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[start:])
	return b.String()
}

func isFormulaStart(c byte) bool { return c == '=' || c == '+' || c == '-' || c == '@' }

// isSeparator: a cell separator of some locale's CSV (termsafe has already
// made line breaks visible).
func isSeparator(c byte) bool { return c == ',' || c == ';' || c == '\t' }

// WriteFile writes what write produces to path atomically: into a
// temporary file beside it, synced, then linked (without force: an
// existing file is never replaced, even one created meanwhile) or renamed
// (with force) into place, and the directory synced. On any error
// nothing is left behind and the error says what to do.
func WriteFile(path string, force bool, write func(io.Writer) error) error {
	name := termsafe.String(path)
	dir := filepath.Dir(path)
	if err := checkTarget(path, dir, force); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w; nothing was written: choose a directory you can write to", termsafe.String(dir), err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("writing %s failed: %w; nothing was written", name, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("writing %s failed: %w; nothing was written", name, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s failed: %w; nothing was written", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s failed: %w; nothing was written", name, err)
	}
	if force {
		err = os.Rename(tmp.Name(), path)
	} else if err = os.Link(tmp.Name(), path); err == nil {
		_ = os.Remove(tmp.Name())
	} else if errors.Is(err, fs.ErrExist) {
		return existsErr(name)
	} else if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EXDEV) {
		// A file system without hard links: check, then rename (the
		// check is not atomic there).
		if _, serr := os.Lstat(path); serr == nil {
			return existsErr(name)
		}
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("cannot put %s in place: %w; nothing was written", name, err)
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

func existsErr(name string) error {
	return fmt.Errorf("%w: %s; nothing was written: choose another name, or overwrite it with :export! %s (--force on the command line)", ErrExists, name, name)
}

// checkTarget explains a path that cannot be written before anything is.
func checkTarget(path, dir string, force bool) error {
	name := termsafe.String(path)
	if path == "" || strings.HasSuffix(path, string(os.PathSeparator)) {
		return fmt.Errorf("%q is no file name; nothing was written: give a path ending in .csv or .json", name)
	}
	di, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the directory %s does not exist; nothing was written: create it or choose another path", termsafe.String(dir))
	case err != nil:
		return fmt.Errorf("cannot use the directory %s: %w; nothing was written", termsafe.String(dir), err)
	case !di.IsDir():
		return fmt.Errorf("%s is not a directory; nothing was written: choose another path", termsafe.String(dir))
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot use %s: %w; nothing was written", name, err)
	case fi.IsDir():
		return fmt.Errorf("%s is a directory; nothing was written: give a file name ending in .csv or .json", name)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s); nothing was written: choose another path", name, fi.Mode().Type())
	case !force:
		return existsErr(name)
	}
	return nil
}
