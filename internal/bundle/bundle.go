// Package bundle writes a ticket bundle for the partner's operator: one
// directory, and a .tar.gz of it beside it, about one delivery or one
// upload:
//
//	README.txt    what happened, when, and what b2bx checked, in words
//	ids.txt       the delivery, upload, interchange, receipt and
//	              correlation IDs
//	checks.txt    the integrity checks (size, SHA-256 against what was
//	              verified, the stored file now)
//	answers.txt   the CONTRL and APERAK (and ORDRSP) summaries, the
//	              contract findings (edi.ContractFindings for the
//	              connection's directory), and each CONTRL/APERAK error
//	              placed on the ORDERS (resend.Pins)
//	excerpts.txt  the raw bytes around each error offset, escaped
//	timeline.txt  the timeline, when a Timeline source is given (the
//	              tracking index); otherwise a line saying so
//
// A bundle never holds a secret: the store it reads keeps none (API
// secrets live in the keyring, claim tokens only in memory), and every
// file is scrubbed of anything shaped like an Authorization header, a
// bearer token or a claim token before it is written. Payload text is
// escaped: the files are plain ASCII. The package imports no UI code.
package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/export"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// TimelineFunc returns the timeline lines of a delivery or upload (the
// tracking index's story of it), oldest first. It is the hook for the
// track package.
type TimelineFunc func(ctx context.Context, connectionID, id string) ([]string, error)

// Options says what to bundle and where.
type Options struct {
	Store        *spool.Store
	ConnectionID string
	// ID is a deliveryAttemptId, an uploadId or an upload's
	// Idempotency-Key.
	ID string
	// OutDir is where the bundle directory and archive go ("" : the
	// current directory).
	OutDir string
	// Version names the b2bx that wrote the bundle (buildinfo).
	Version string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Timeline, when not nil, fills timeline.txt.
	Timeline TimelineFunc
	// Directory is the connection's profile revision ("D.96A", "D.25A";
	// "" unknown): a delivery's messages that break the contract's
	// version rules for it are listed as contract findings.
	Directory string
	// Colleague, when not nil, finds a delivery this machine did not
	// store in the team store (a colleague fetched it): its bytes are
	// checked against its SHA-256 and the README says who fetched it.
	Colleague ColleagueFunc
}

// Result says where the bundle went.
type Result struct {
	Dir     string   // the bundle directory
	Archive string   // Dir + ".tar.gz"
	Files   []string // the file names in it, in order
	// Subject says in a few words what it is about: "delivery …" or
	// "upload …".
	Subject string
}

// ErrNotFound: the ID names no stored delivery and no upload of the
// connection.
var ErrNotFound = errors.New("no stored delivery and no upload with that ID")

// file is one file of the bundle.
type file struct {
	name string
	body bytes.Buffer
}

type builder struct {
	files []*file
}

func (b *builder) file(name string) *bytes.Buffer {
	f := &file{name: name}
	b.files = append(b.files, f)
	return &f.body
}

// Write builds the bundle and writes it. The directory is written under
// a temporary name and renamed into place, and the archive atomically
// (export.WriteFile); an existing bundle of the same name is never
// replaced (a numbered name is used instead).
func Write(ctx context.Context, o Options) (*Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OutDir == "" {
		o.OutDir = "."
	}
	if fi, err := os.Stat(o.OutDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("the output directory %s does not exist or is not a directory; nothing was written: create it or choose another with -o", termsafe.String(o.OutDir))
	}
	l, err := orders.LoadLinked(ctx, o.Store, o.ConnectionID, nil)
	if err != nil {
		return nil, err
	}
	hist, err := o.Store.Uploads(o.ConnectionID)
	if err != nil {
		return nil, err
	}
	now := o.Now().UTC()
	b := &builder{}
	var subject string
	if d, ok := l.Delivery(o.ID); ok {
		subject = "delivery " + termsafe.String(o.ID)
		deliveryBundle(ctx, b, o, l, d, now)
	} else if rec, ok := findUpload(hist, o.ID); ok {
		subject = "upload " + termsafe.String(uploadRef(rec))
		uploadBundle(ctx, b, o, l, hist, rec, now)
	} else if c, err := colleagueDelivery(ctx, o, l); err != nil {
		return nil, err
	} else if c != nil {
		defer c.done()
		subject = "delivery " + termsafe.String(o.ID)
		deliveryBundle(ctx, b, o, c.l, c.d, now)
		b.fromTheTeam(c.by)
	} else {
		return nil, fmt.Errorf("%w: %q in connection %s; nothing was written: give a deliveryAttemptId that was fetched (b2bx fetch), or the upload id or key of an upload made with b2bx",
			ErrNotFound, termsafe.String(o.ID), termsafe.String(o.ConnectionID))
	}
	timeline(ctx, b, o)
	for _, f := range b.files {
		scrubbed := Scrub(f.body.Bytes())
		f.body.Reset()
		f.body.Write(scrubbed)
	}
	return b.write(o, now, subject)
}

func (b *builder) write(o Options, now time.Time, subject string) (*Result, error) {
	base := "b2bx-bundle-" + spool.SafeName(o.ID) + "-" + now.Format("20060102T150405Z")
	var dir string
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		dir = filepath.Join(o.OutDir, name)
		_, e1 := os.Lstat(dir)
		_, e2 := os.Lstat(dir + ".tar.gz")
		if errors.Is(e1, fs.ErrNotExist) && errors.Is(e2, fs.ErrNotExist) {
			break
		}
		if n > 100 {
			return nil, fmt.Errorf("too many bundles named %s in %s; nothing was written", base, termsafe.String(o.OutDir))
		}
	}
	tmp, err := os.MkdirTemp(o.OutDir, ".b2bx-bundle-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %w; nothing was written", termsafe.String(o.OutDir), err)
	}
	res := &Result{Dir: dir, Archive: dir + ".tar.gz", Subject: subject}
	for _, f := range b.files {
		if err := os.WriteFile(filepath.Join(tmp, f.name), f.body.Bytes(), 0o600); err != nil {
			_ = os.RemoveAll(tmp)
			return nil, fmt.Errorf("writing the bundle failed: %w; nothing was written", err)
		}
		res.Files = append(res.Files, f.name)
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("writing the bundle failed: %w; nothing was written", err)
	}
	err = export.WriteFile(res.Archive, false, func(w io.Writer) error { return b.tarGz(w, filepath.Base(dir), now) })
	if err != nil {
		return res, fmt.Errorf("the bundle directory %s was written, the archive not: %w", termsafe.String(dir), err)
	}
	return res, nil
}

// tarGz writes the files under top/ as a gzip-compressed tar.
func (b *builder) tarGz(w io.Writer, top string, now time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o700, ModTime: now}); err != nil {
		return err
	}
	for _, f := range b.files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: top + "/" + f.name, Mode: 0o600, Size: int64(f.body.Len()), ModTime: now}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.body.Bytes()); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// secretShapes match what a secret looks like when it leaks into text:
// an Authorization header, a bearer token, a claim-token header or JSON
// field, an api key "id:secret" after "key".
var secretShapes = regexp.MustCompile(`(?i)(authorization\s*[:=]\s*(?:bearer\s+)?|bearer\s+|x-b2b-claim-token\s*[:=]\s*|"?claim_?token"?\s*[:=]\s*"?|"?secret"?\s*[:=]\s*"?)([^\s"',;]+)`)

// Scrub replaces the value of anything shaped like a secret with
// "[redacted]": a last line of defence, the bundle's sources hold none.
func Scrub(b []byte) []byte {
	return secretShapes.ReplaceAll(b, []byte("${1}[redacted]"))
}

// escape shows bytes as an ASCII-only quoted string (Latin-1 and control
// bytes as \xNN), so a payload's bytes never reach a terminal raw.
func escape(b []byte) string {
	var s strings.Builder
	s.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			s.WriteByte('\\')
			s.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			s.WriteByte(c)
		case c == '\n':
			s.WriteString(`\n`)
		case c == '\r':
			s.WriteString(`\r`)
		default:
			fmt.Fprintf(&s, `\x%02x`, c)
		}
	}
	s.WriteByte('"')
	return s.String()
}

// window is how many bytes excerpts show before and after an offset.
const window = 48

// excerpt is the bytes of data around off, escaped, with the range.
func excerpt(data []byte, off int) string {
	lo, hi := max(0, off-window), min(len(data), off+window)
	if off < 0 || off > len(data) {
		return "(offset outside the payload)"
	}
	return fmt.Sprintf("bytes %d-%d: %s\n    error at byte %d: %s", lo, hi, escape(data[lo:hi]), off, escape(data[off:min(len(data), off+16)]))
}

func timeline(ctx context.Context, b *builder, o Options) {
	w := b.file("timeline.txt")
	if o.Timeline == nil {
		fmt.Fprintln(w, "The timeline is not part of this bundle: this b2bx has no tracking index to read it from.")
		return
	}
	lines, err := o.Timeline(ctx, o.ConnectionID, o.ID)
	if err != nil {
		fmt.Fprintf(w, "The timeline could not be read: %s\n", termsafe.String(err.Error()))
		return
	}
	for _, l := range lines {
		fmt.Fprintln(w, termsafe.String(l))
	}
}

// readPayload reads a regular file of at most orders.MaxSize bytes.
func readPayload(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", termsafe.String(path))
	}
	if fi.Size() > orders.MaxSize {
		return nil, fmt.Errorf("%s has %d bytes, more than 16 MiB", termsafe.String(path), fi.Size())
	}
	return os.ReadFile(path)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "(unknown)"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}
