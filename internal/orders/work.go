package orders

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/pin"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// WorkDir is where work copies of a connection's rejected uploads go:
// "work/<connection>" under the store's root, beside the deliveries.
func WorkDir(store *spool.Store, connectionID string) string {
	return filepath.Join(store.Root(), "work", spool.SafeName(connectionID))
}

// NewWorkCopy writes data (the rejected upload's bytes) to a new file in
// dir for the operator's editor: "<business id>-fix.edi", or
// "-fix-2.edi" and so on when that exists (a work copy is never
// overwritten: it may hold an unfinished fix). The file is private
// (0600) and synced. It returns the path.
func NewWorkCopy(dir string, rec spool.UploadRecord, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot create the work directory %s: %w", termsafe.String(dir), err)
	}
	base := spool.SafeName(rec.BusinessID)
	if rec.BusinessID == "" {
		base = "upload"
	}
	for n := 1; n < 1000; n++ {
		name := base + "-fix.edi"
		if n > 1 {
			name = base + "-fix-" + strconv.Itoa(n) + ".edi"
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot create the work copy: %w", err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return "", fmt.Errorf("cannot write the work copy %s: %w", termsafe.String(path), err)
		}
		return path, nil
	}
	return "", fmt.Errorf("the work directory %s holds 999 work copies of %s: remove old ones", termsafe.String(dir), termsafe.String(base))
}

// ErrNotWorkCopy matches an error about a work copy that is no longer a
// file b2bx may read as the fix: the editor (or anything else) put a
// symbolic link, FIFO, device, directory or a hard link to another file
// at its name.
var ErrNotWorkCopy = errors.New("the work copy is no longer a plain file of its own")

// OpenWorkCopy opens the edited work copy at path for reading, without
// following a symbolic link at the name (O_NOFOLLOW) and without
// blocking. It accepts the file NewWorkCopy created, or a regular file an
// editor wrote in its place (vim, emacs and others save by writing a new
// file and renaming it over the old one), and refuses anything else at
// that name: a symlink (to /etc/passwd, or to another valid ORDERS that
// would then be offered for sending), a FIFO, device or directory, and a
// hard link to another file (more than one link). info is the open
// file's metadata.
func OpenWorkCopy(path string) (*os.File, fs.FileInfo, error) {
	name := termsafe.String(path)
	refuse := func(what string) error {
		return fmt.Errorf("%w: %s is %s; the review reads only the regular file the editor saved there: nothing can be sent from it, E writes the fix again", ErrNotWorkCopy, name, what)
	}
	f, err := spool.OpenRegular(path, false)
	if errors.Is(err, spool.ErrNotRegular) {
		what := "not a regular file"
		if li, lerr := os.Lstat(path); lerr == nil {
			what = describeMode(li.Mode())
		}
		return nil, nil, refuse(what)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the file: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("cannot read the file: %w", err)
	}
	if n := linkCount(info); n > 1 {
		_ = f.Close()
		return nil, nil, refuse(fmt.Sprintf("a hard link shared with %d other names (another file's bytes)", n-1))
	}
	return f, info, nil
}

// describeMode names what a non-regular file is.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// Review is what the operator sees after editing a work copy, before
// deciding to send it: the pre-flight, the segments that changed against
// the rejected bytes, and the key the fix would get.
type Review struct {
	// Preflight of the edited file (Blocked: it cannot be sent).
	Preflight *Preflight
	// Changes are the segments that differ from the rejected bytes, in
	// order; none when Unchanged.
	Changes []pin.SegmentChange
	// Unchanged: the edited file has the rejected bytes exactly.
	Unchanged bool
	// Plan is the key plan (nothing is reserved); nil when the
	// pre-flight blocks. Plan.Fixes names the rejected upload.
	Plan *Plan
	// Refused is why the fix may not be sent as it is (resend.Guard: the
	// bytes repeat a rejected upload), nil when it may.
	Refused error
	// Touched says for each pin given to ReviewFix whether the edit
	// changed or removed the segment it names.
	Touched []bool
	// Notes are what the operator should know before sending (e.g.
	// ControlRefNote), terminal-safe.
	Notes []string
}

// ReviewFix reviews the edited work copy at path against the rejected
// upload rec (whose bytes are rejected) for the connection: pre-flight,
// segment diff, key plan and the resend guard over l (the connection's
// linked answers; nil: only rec counts as rejected). pins are the
// rejection's pins on the rejected bytes (see Touched). opts are the
// connection's, as for an upload (ConnectionOptions, WithHistory): the
// review shows the same contract, partner rule and "what this partner
// accepted before" checks as the upload's pre-flight.
func ReviewFix(ctx context.Context, store *spool.Store, l *Linked, rec spool.UploadRecord, rejected []byte, path string, pins []pin.Pin, opts Options) (*Review, error) {
	f, info, err := OpenWorkCopy(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := inspectOpen(ctx, f, info, path, opts)
	if err != nil {
		return nil, err
	}
	r := &Review{Preflight: pf}
	old, oerr := edi.Parse(rejected)
	if oerr != nil {
		return nil, fmt.Errorf("the rejected bytes cannot be read again: %w", oerr)
	}
	if data := pf.Data(); data != nil {
		if string(data) == string(rejected) {
			r.Unchanged = true
		} else if doc, err := edi.Parse(data); err == nil {
			r.Changes = pin.DiffSegments(old, doc)
		}
	}
	r.Touched = touched(pins, r.Changes, r.Unchanged)
	if pf.Blocked() {
		return r, nil
	}
	if r.Plan, err = NewPlan(store, rec.ConnectionID, pf); err != nil {
		return nil, err
	}
	r.Plan.Fixes = FixesRef(rec)
	r.Refused = Guard(l, pf.SHA256, &rec, false)
	if n := ControlRefNote(rec, pf); n != "" {
		r.Notes = append(r.Notes, n)
	}
	return r, nil
}

// ControlRefNote warns when a fix keeps the interchange control
// reference (UNB 0020) of the upload it fixes: partners often refuse a
// repeated reference as a duplicate interchange, and their CONTRLs to
// the two (which name the reference) cannot be told apart. "" when the
// reference is new or unknown.
func ControlRefNote(fixes spool.UploadRecord, pf *Preflight) string {
	if pf == nil || pf.Facts == nil || fixes.ControlRef == "" || pf.Facts.ControlRef != fixes.ControlRef {
		return ""
	}
	return "the fix keeps the interchange control reference " + termsafe.String(fixes.ControlRef) +
		" of the rejected upload: partners often refuse a repeated reference as a duplicate, and their CONTRLs to the two cannot be told apart; give UNB and UNZ a new reference (data element 0020)"
}

// touched marks the pins whose segment a change removed or replaced.
func touched(pins []pin.Pin, changes []pin.SegmentChange, unchanged bool) []bool {
	out := make([]bool, len(pins))
	if unchanged {
		return out
	}
	gone := map[int]bool{}
	for _, c := range changes {
		if c.Old >= 0 {
			gone[c.Old] = true
		}
	}
	for i, p := range pins {
		out[i] = p.Segment >= 0 && gone[p.Segment]
	}
	return out
}
