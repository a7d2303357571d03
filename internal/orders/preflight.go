package orders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// MaxSize is the Partner API's payload limit: 16 MiB.
const MaxSize = apiclient.MaxPayloadSize

// Severity grades one line of the pre-flight report.
type Severity int

// Severities, from harmless to fatal.
const (
	OK       Severity = iota // the check passed
	Note                     // information the operator must see (e.g. a directory note)
	Warning                  // the upload may go after the operator confirms
	Blocking                 // the upload cannot go
)

var severityNames = [...]string{OK: "ok", Note: "note", Warning: "warning", Blocking: "blocking"}

// String is "ok", "note", "warning" or "blocking".
func (s Severity) String() string {
	if s >= 0 && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// Check names, stable for tests and machine output.
const (
	CheckSize        = "size"
	CheckParse       = "parse"
	CheckIssue       = "issue" // one issue of the parse, listed under CheckParse
	CheckInterchange = "interchange"
	CheckMessages    = "messages"
	CheckSender      = "sender"
	CheckRecipient   = "recipient"
	CheckOrders      = "orders"
	CheckDirectory   = "directory"
	CheckTest        = "test"
	CheckContract    = "contract"     // the Partner API's version rules (edi.ContractFindings)
	CheckPartnerRule = "partner-rule" // a rule of the partner's MIG (edi/mig)
	CheckHistory     = "history"      // a shape the partner never accepted (History)
	CheckProblem     = "problem"      // why the payload is blocked, in words
)

// Options are what the pre-flight knows of the connection the payload
// is for. The zero value knows nothing: both of the contract's
// directories pass, no partner rules.
type Options struct {
	// Directory is the connection's profile revision ("D.96A" or
	// "D.25A", credentials.Profile.EDIDirectory); "" when unknown.
	Directory string
	// Rules are the partner's MIG rules; nil for none.
	Rules *mig.Rules
	// History is what the connection's partner accepted and rejected
	// before (LoadHistory); nil for none.
	History *Accepted
	// Force lets an ORDERS in another directory go: the contract check
	// warns instead of blocking (b2bx upload --force).
	Force bool
}

// Check is one line of the pre-flight report. Text is terminal-safe.
type Check struct {
	Name     string
	Severity Severity
	Text     string
	// Rule is where a partner rule is written ("acme.toml:12"), "" for
	// the other checks; Segment the segment a finding is about (-1: none).
	Rule    string
	Segment int
}

// Preflight is what is known about a payload before anything is sent.
type Preflight struct {
	// Path is the file's absolute path ("" for InspectBytes); Name is the
	// name as given. Both are raw: sanitise them for display.
	Path, Name string
	Size       int64
	SHA256     string // lower-case hex; "" when the file was not read
	// Facts are the envelope facts keys are built from; nil when blocked.
	Facts *edi.OrdersFacts
	// Checks is the report in reading order.
	Checks []Check
	// Problem is the first blocking problem, worded for the operator
	// (what is wrong, what to do, "nothing was sent"); nil when the
	// payload may be sent. It may quote the file: sanitise it for display.
	Problem error

	data []byte
	opts Options
}

// Blocked reports whether the payload must not be sent.
func (p *Preflight) Blocked() bool { return p.Problem != nil }

// Warnings are the checks the operator must confirm before sending.
func (p *Preflight) Warnings() []Check {
	var w []Check
	for _, c := range p.Checks {
		if c.Severity == Warning {
			w = append(w, c)
		}
	}
	return w
}

// Data is the payload exactly as read (nil when it was not read). The
// caller must not modify it.
func (p *Preflight) Data() []byte { return p.data }

// Inspect reads the file at path and runs the pre-flight. Only a regular
// file is read (a FIFO, device or directory is refused without opening
// it, so a pipe or /dev/zero can neither block nor feed it forever; a
// symlink to a regular file is fine), and only up to 16 MiB: the size is
// checked from the file's metadata before reading and again while
// reading in case it grows. Cancelling ctx stops the read.
//
// The error is for a file that cannot be read at all; everything about
// its content (empty, too large, not one ORDERS interchange) is in the
// returned Preflight's Problem and Checks.
func Inspect(ctx context.Context, path string) (*Preflight, error) {
	return InspectWith(ctx, path, Options{})
}

// InspectWith is Inspect for a connection: its directory and partner
// rules (see Options).
func InspectWith(ctx context.Context, path string, opts Options) (*Preflight, error) {
	f, err := spool.OpenRegular(path, true)
	if errors.Is(err, spool.ErrNotRegular) {
		return nil, fmt.Errorf("%w; upload reads only regular files: copy the interchange into one first", err)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	return inspectOpen(ctx, f, info, path, opts)
}

// inspectOpen runs the pre-flight on f, a regular file open for reading
// whose metadata is info; path is what messages call it.
func inspectOpen(ctx context.Context, f *os.File, info fs.FileInfo, path string, opts Options) (*Preflight, error) {
	name := termsafe.String(path)
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := &Preflight{Path: abs, Name: path, Size: info.Size(), opts: opts}
	switch {
	case info.Size() == 0:
		p.block(CheckSize, fmt.Errorf("%s is empty: nothing to upload", name))
		return p, nil
	case info.Size() > MaxSize:
		p.block(CheckSize, fmt.Errorf("%s has %d bytes; the Partner API accepts at most 16 MiB (%d bytes): split the orders into several interchanges", name, info.Size(), MaxSize))
		return p, nil
	}
	data, err := io.ReadAll(io.LimitReader(spool.ContextReader(ctx, f), MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	if len(data) > MaxSize {
		p.Size = int64(len(data))
		p.block(CheckSize, fmt.Errorf("%s grew past 16 MiB while being read; nothing was sent", name))
		return p, nil
	}
	p.inspect(data)
	return p, nil
}

// InspectBytes runs the pre-flight on data already in memory; name is
// what messages call it. data is kept, not copied.
func InspectBytes(name string, data []byte) *Preflight {
	return InspectBytesWith(name, data, Options{})
}

// InspectBytesWith is InspectBytes for a connection (see Options).
func InspectBytesWith(name string, data []byte, opts Options) *Preflight {
	p := &Preflight{Name: name, Size: int64(len(data)), opts: opts}
	switch {
	case len(data) == 0:
		p.block(CheckSize, fmt.Errorf("%s is empty: nothing to upload", termsafe.String(name)))
		return p
	case len(data) > MaxSize:
		p.block(CheckSize, fmt.Errorf("%s has %d bytes; the Partner API accepts at most 16 MiB (%d bytes): split the orders into several interchanges", termsafe.String(name), len(data), MaxSize))
		return p
	}
	p.inspect(data)
	return p
}

// block records a blocking problem (the first one wins) and its line.
func (p *Preflight) block(name string, err error) {
	if p.Problem == nil {
		p.Problem = err
	}
	p.add(name, Blocking, termsafe.String(err.Error()))
}

func (p *Preflight) add(name string, sev Severity, text string) {
	p.Checks = append(p.Checks, Check{Name: name, Severity: sev, Text: text, Segment: -1})
}

// inspect hashes and parses data (at most MaxSize bytes, not empty) and
// builds the report.
func (p *Preflight) inspect(data []byte) {
	sum := sha256.Sum256(data)
	p.data, p.SHA256 = data, hex.EncodeToString(sum[:])
	p.add(CheckSize, OK, fmt.Sprintf("%s (%d bytes) of at most 16 MiB", human.Bytes(int64(len(data))), len(data)))
	name := termsafe.String(p.Name)
	facts, err := edi.PreflightOrders(data)
	doc := (*edi.Document)(nil)
	if facts != nil {
		doc = facts.Doc
	}
	var pe *edi.PreflightError
	if err != nil && errors.As(err, &pe) && pe.Kind != edi.PreflightEmpty && pe.Kind != edi.PreflightTooLarge {
		// The refusal names one reason; the report shows the whole picture.
		doc, _ = edi.Parse(data)
	}
	if doc != nil {
		describe(p, doc)
	}
	if err != nil {
		p.Problem = fmt.Errorf("%s cannot be uploaded, nothing was sent: %w", name, err)
		text := err.Error()
		if pe != nil {
			text = pe.Detail
		}
		p.add(CheckProblem, Blocking, termsafe.String(text))
		return
	}
	if p.checkConnection(doc); p.Blocked() {
		return
	}
	p.Facts = facts
}

// checkConnection adds what the connection knows: the contract's version
// rules for its directory and the partner's rules.
func (p *Preflight) checkConnection(doc *edi.Document) {
	for _, f := range edi.ContractFindings(doc, p.opts.Directory) {
		text := termsafe.String(f.Text)
		if p.opts.Force {
			p.add(CheckContract, Warning, text+"; sent anyway (--force)")
			continue
		}
		p.block(CheckContract, fmt.Errorf("%s cannot be uploaded, nothing was sent: %s; convert the order to the connection's directory, or correct the profile's directory if the connection's revision changed (--force sends it anyway)", termsafe.String(p.Name), f.Text))
	}
	if p.Blocked() {
		return
	}
	for _, text := range p.opts.History.Differences(doc) {
		p.add(CheckHistory, Warning, termsafe.String(text))
	}
	if p.opts.Rules == nil {
		return
	}
	for _, f := range p.opts.Rules.Check(doc) {
		p.Checks = append(p.Checks, Check{Name: CheckPartnerRule, Severity: Warning, Segment: f.Segment,
			Rule: termsafe.String(f.Where), Text: termsafe.String(f.Where + ": " + f.Text)})
	}
}
