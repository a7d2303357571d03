package events

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Capture file conventions (see ReadPath).
const (
	ExtJSON    = ".json"    // a delivery's raw body
	ExtHeaders = ".headers" // its request headers, next to the body
	ExtHTTP    = ".http"    // a whole raw HTTP request
	// MaxCaptureFile bounds one capture file: far above the 10 MiB batch
	// limit, so an oversized batch is still read and reported as such.
	MaxCaptureFile = 64 << 20
	// maxDirEntries bounds how many deliveries a directory may hold.
	maxDirEntries = 10000
)

// Delivery is one captured webhook delivery: its request headers (nil
// when none were captured) and the raw body, exactly as received. Build
// one directly, or with ReadPath or ParseHTTPRequest.
type Delivery struct {
	// Name labels the delivery in findings, usually the file path.
	Name string
	// Header holds the request headers; nil means none were captured, so
	// the signature cannot be checked.
	Header http.Header
	// Body is the raw request body: one event (a JSON object) or a batch
	// (a JSON array of events).
	Body []byte
	// TrailingBytes counts bytes after the body that Content-Length
	// excluded (often a newline an editor added). They are not part of
	// the signed body.
	TrailingBytes int
	// BodyToEOF is true when a raw request had neither Content-Length nor
	// chunked encoding, so the rest of the file was taken as the body.
	BodyToEOF bool
}

// ErrUnreadable matches every error of ReadPath and ParseHTTPRequest.
var ErrUnreadable = errors.New("capture cannot be read")

// ReadPath reads captured deliveries from a file or a directory.
//
// A file holding a raw HTTP request ("POST /hook HTTP/1.1", headers, a
// blank line, the body; CRLF or LF line ends) is one delivery with its
// headers. Any other file is a raw body; when NAME.headers exists next to
// NAME.json (or next to NAME for other names: NAME.headers replaces the
// extension) it holds the request headers, one "Name: value" per line, an
// optional request line first.
//
// A directory yields every *.json and *.http file in it (not in
// subdirectories), sorted by name: name captures so that they sort in
// arrival order, because ordering and duplicate checks follow that order.
// *.headers files belong to their *.json; other files are ignored.
func ReadPath(path string) ([]Delivery, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	if !st.IsDir() {
		d, err := readFile(path)
		if err != nil {
			return nil, err
		}
		return []Delivery{d}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	var names []string
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.Type().IsRegular() && (ext == ExtJSON || ext == ExtHTTP) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: %s holds no *%s or *%s capture", ErrUnreadable, path, ExtJSON, ExtHTTP)
	}
	if len(names) > maxDirEntries {
		return nil, fmt.Errorf("%w: %s holds %d captures; split it (at most %d)", ErrUnreadable, path, len(names), maxDirEntries)
	}
	sort.Strings(names)
	out := make([]Delivery, 0, len(names))
	for _, n := range names {
		d, err := readFile(filepath.Join(path, n))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func readFile(path string) (Delivery, error) {
	if strings.EqualFold(filepath.Ext(path), ExtHeaders) {
		return Delivery{}, fmt.Errorf("%w: %s is a headers file: pass the body next to it (NAME%s) or the directory", ErrUnreadable, path, ExtJSON)
	}
	raw, err := readLimited(path)
	if err != nil {
		return Delivery{}, err
	}
	if looksLikeHTTPRequest(raw) {
		return ParseHTTPRequest(path, raw)
	}
	d := Delivery{Name: path, Body: raw}
	hp := strings.TrimSuffix(path, filepath.Ext(path)) + ExtHeaders
	hraw, err := readLimited(hp)
	switch {
	case err == nil:
		h, err := ParseHeaders(hraw)
		if err != nil {
			return Delivery{}, fmt.Errorf("%s: %w", hp, err)
		}
		d.Header = h
	case !errors.Is(err, os.ErrNotExist):
		return Delivery{}, err
	}
	return d, nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxCaptureFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreadable, path, err)
	}
	if len(raw) > MaxCaptureFile {
		return nil, fmt.Errorf("%w: %s is larger than %d MiB; a batch may have at most 10 MiB", ErrUnreadable, path, MaxCaptureFile>>20)
	}
	return raw, nil
}

// looksLikeHTTPRequest reports whether raw starts with a request line:
// an upper-case method, a space, a target, " HTTP/".
func looksLikeHTTPRequest(raw []byte) bool {
	line, _, _ := bytes.Cut(raw[:min(len(raw), 8192)], []byte("\n"))
	method, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(method) == 0 {
		return false
	}
	for _, c := range method {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return bytes.Contains(rest, []byte(" HTTP/"))
}

// ParseHTTPRequest reads one raw HTTP/1.x request (CRLF or LF line ends).
// The body is read by Content-Length or chunked encoding; bytes after it
// are counted in TrailingBytes. Without either, the rest of raw is the
// body (BodyToEOF).
func ParseHTTPRequest(name string, raw []byte) (Delivery, error) {
	src := bytes.NewReader(raw)
	br := bufio.NewReader(src)
	req, err := http.ReadRequest(br)
	if err != nil {
		return Delivery{}, fmt.Errorf("%w: %s: not a raw HTTP request: %w", ErrUnreadable, name, err)
	}
	defer req.Body.Close()
	d := Delivery{Name: name, Header: req.Header}
	framed := req.ContentLength > 0 || len(req.TransferEncoding) > 0 || req.Header.Get("Content-Length") != ""
	if framed {
		d.Body, err = io.ReadAll(req.Body)
		if err != nil {
			return Delivery{}, fmt.Errorf("%w: %s: the body is shorter than announced or badly chunked: %w", ErrUnreadable, name, err)
		}
		d.TrailingBytes = br.Buffered() + src.Len()
		return d, nil
	}
	d.Body, _ = io.ReadAll(br) // reading a bytes.Reader cannot fail
	d.BodyToEOF = true
	return d, nil
}

// ParseHeaders reads a headers file: "Name: value" lines (CRLF or LF),
// optionally after a request line, up to the first blank line.
func ParseHeaders(raw []byte) (http.Header, error) {
	if looksLikeHTTPRequest(raw) {
		_, raw, _ = bytes.Cut(raw, []byte("\n"))
	}
	raw = bytes.TrimLeft(raw, "\r\n")
	buf := make([]byte, 0, len(raw)+4)
	buf = append(append(buf, bytes.TrimRight(raw, "\r\n")...), "\r\n\r\n"...)
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(buf))).ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("%w: headers must be \"Name: value\" lines: %w", ErrUnreadable, err)
	}
	return http.Header(h), nil
}
