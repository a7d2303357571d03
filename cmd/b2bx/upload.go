package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "upload", summary: "upload one ORDERS interchange with a generated idempotency key", run: runUpload})
}

// uploadJSON is the --json output of upload.
type uploadJSON struct {
	File          string `json:"file"`
	Size          int64  `json:"size"`
	SHA256        string `json:"sha256"`
	Key           string `json:"key"`
	N             int    `json:"n"` // 0: the key came from --key
	Decision      string `json:"decision"`
	SenderID      string `json:"senderId"`
	BusinessID    string `json:"businessId"`
	HTTPStatus    int    `json:"httpStatus,omitempty"`
	UploadID      string `json:"uploadId,omitempty"`
	InterchangeID string `json:"interchangeId,omitempty"`
	Status        string `json:"status,omitempty"`
	Replay        bool   `json:"replay"`
	Outcome       string `json:"outcome"`
	CorrelationID string `json:"correlationId,omitempty"`
	Error         string `json:"error,omitempty"`
}

type uploadFlags struct {
	key            string
	replay, newKey bool
	asJSON         bool
}

// upload is one upload command's state.
type upload struct {
	e     *env
	f     uploadFlags
	store *spool.Store
	data  []byte
	facts *edi.OrdersFacts
	rec   spool.UploadRecord
	out   uploadJSON
}

func runUpload(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "upload", "FILE")
	cf := addConnFlags(fs)
	var f uploadFlags
	fs.StringVar(&f.key, "key", "", "use this Idempotency-Key instead of generating one (`KEY`: 1-200 of A-Z a-z 0-9 . _ : -)")
	fs.BoolVar(&f.replay, "replay", false, "if these bytes were already accepted: send them again under the same key (the server answers replay)")
	fs.BoolVar(&f.newKey, "new", false, "if these bytes were already accepted: a new upload under the next key number")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON (the key goes to stderr before sending)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if err := f.validate(pos); err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	t, err := cf.resolve(ctx, e)
	if err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	u := &upload{e: e, f: f}
	if err := u.readPayload(ctx, pos[0]); err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	ac, err := newAPIConn(e, t, "upload")
	if err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	if u.store, err = openSpool(e, t); err != nil {
		return fail(e, "upload", f.asJSON, exitStorage, err)
	}
	u.rec.ConnectionID = t.ConnectionID
	if code := u.reserveKey(); code != exitOK {
		return code
	}
	return u.send(ctx, ac.client)
}

func (f *uploadFlags) validate(pos []string) error {
	switch {
	case len(pos) != 1:
		return errors.New("give exactly one FILE holding one ORDERS interchange")
	case f.replay && f.newKey:
		return errors.New("--replay and --new exclude each other")
	case f.key != "" && (f.replay || f.newKey):
		return errors.New("--replay and --new choose between generated keys; with --key you choose the key yourself")
	case f.key != "":
		if err := apiclient.ValidateIdempotencyKey(f.key); err != nil {
			return fmt.Errorf("--key: %w", err)
		}
	}
	return nil
}

// readPayload checks the file before anything is sent: a regular file
// (a FIFO, device or directory is refused without opening it, so a pipe
// or /dev/zero can neither block nor feed it forever; a symlink to a
// regular file is fine), not empty, at most 16 MiB (checked from its size
// before reading, and again while reading in case it grows), exactly one
// interchange of ORDERS only. Cancelling ctx stops the read.
func (u *upload) readPayload(ctx context.Context, path string) error {
	name := termsafe.String(path)
	f, err := spool.OpenRegular(path, true)
	if errors.Is(err, spool.ErrNotRegular) {
		return fmt.Errorf("%w; upload reads only regular files: copy the interchange into one first", err)
	}
	if err != nil {
		return fmt.Errorf("cannot read the file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot read the file: %w", err)
	}
	switch {
	case info.Size() == 0:
		return fmt.Errorf("%s is empty: nothing to upload", name)
	case info.Size() > apiclient.MaxPayloadSize:
		return fmt.Errorf("%s has %d bytes; the Partner API accepts at most 16 MiB (%d bytes): split the orders into several interchanges", name, info.Size(), apiclient.MaxPayloadSize)
	}
	data, err := io.ReadAll(io.LimitReader(spool.ContextReader(ctx, f), apiclient.MaxPayloadSize+1))
	if err != nil {
		return fmt.Errorf("cannot read the file: %w", err)
	}
	if len(data) > apiclient.MaxPayloadSize {
		return fmt.Errorf("%s grew past 16 MiB while being read; nothing was sent", name)
	}
	facts, err := edi.PreflightOrders(data)
	if err != nil {
		return fmt.Errorf("%s cannot be uploaded, nothing was sent: %w", name, err)
	}
	u.data, u.facts = data, facts
	sum := sha256.Sum256(data)
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	u.rec.File, u.rec.Size, u.rec.SHA256 = abs, int64(len(data)), hex.EncodeToString(sum[:])
	u.rec.SenderID, u.rec.BusinessID = facts.SenderID, businessID(facts)
	return nil
}

// businessID follows CONTRACT.md: the BGM document number of the one
// ORDERS message, or the interchange control reference when there are
// several.
func businessID(f *edi.OrdersFacts) string {
	if len(f.Messages) == 1 && f.Messages[0].DocNumber != "" {
		return f.Messages[0].DocNumber
	}
	return f.ControlRef
}

// reserveKey chooses the key (from --key, or from the history) and records
// it as pending before anything is sent, then shows it.
func (u *upload) reserveKey() int {
	if u.f.key != "" {
		u.rec.Key, u.rec.N, u.rec.Outcome = u.f.key, 0, spool.OutcomePending
		if err := u.store.AppendUpload(u.rec); err != nil {
			return fail(u.e, "upload", u.f.asJSON, exitStorage, fmt.Errorf("recording the upload in the history failed, nothing was sent: %w", err))
		}
		u.out.Decision = "operator-key"
		u.announce("given with --key")
		return exitOK
	}
	req := spool.KeyRequest{SenderID: u.rec.SenderID, BusinessID: u.rec.BusinessID, SHA256: u.rec.SHA256}
	switch {
	case u.f.replay:
		req.Choice = spool.ChoiceReplay
	case u.f.newKey:
		req.Choice = spool.ChoiceNew
	}
	keyFor := func(n int) (string, error) { return apiclient.IdempotencyKey(req.SenderID, req.BusinessID, n) }
	d, rec, err := u.store.ReserveUpload(req, u.rec, keyFor)
	if err == nil && d.Kind == spool.NeedChoice {
		var code int
		if req.Choice, code = u.askChoice(d, keyFor); code != exitOK {
			return code
		}
		d, rec, err = u.store.ReserveUpload(req, u.rec, keyFor)
	}
	if err == nil && rec == nil {
		err = errors.New("the upload history changed while choosing; run the command again")
	}
	if err != nil {
		return fail(u.e, "upload", u.f.asJSON, exitStorage, fmt.Errorf("choosing the idempotency key from the upload history failed, nothing was sent: %w", err))
	}
	u.rec = *rec
	u.out.Decision = d.Kind.String()
	why := d.Explain()
	if (u.f.replay || u.f.newKey) && d.Kind != spool.Replay && d.Kind != spool.NewUpload {
		why += "; --replay/--new only apply to bytes that were already accepted"
	}
	u.announce(why)
	return exitOK
}

// askChoice asks the operator, on a terminal only, whether accepted bytes
// are a replay or a new upload.
func (u *upload) askChoice(d spool.KeyDecision, keyFor func(int) (string, error)) (spool.Choice, int) {
	newKey, err := keyFor(d.NewN)
	if err != nil {
		return 0, fail(u.e, "upload", u.f.asJSON, exitUsage, err)
	}
	p := d.Previous
	prev := fmt.Sprintf("key %s (upload %s, %s)", termsafe.String(p.Key), termsafe.String(p.UploadID), p.Time.Format("2006-01-02 15:04:05Z07:00"))
	if !isTerminal(u.e.stdin) {
		return 0, fail(u.e, "upload", u.f.asJSON, exitUsage, fmt.Errorf(
			"these bytes were already accepted under %s; nothing was sent. Choose: --replay sends them again under the same key (the server answers replay, no new order), --new uploads them as a new order under key %s", prev, newKey))
	}
	fmt.Fprintf(u.e.stderr, "These bytes were already accepted under %s.\n  r  replay: same key; the server answers replay, no new order\n  n  new upload: key %s; the partner receives the order again\nReplay, new, or abort? [r/n/N] ", prev, newKey)
	line, _ := bufio.NewReader(u.e.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "r", "replay":
		return spool.ChoiceReplay, exitOK
	case "n", "new":
		return spool.ChoiceNew, exitOK
	}
	fmt.Fprintln(u.e.stderr, "aborted; nothing was sent")
	return 0, exitUsage
}

// announce shows the key before it is sent: on stdout, or on stderr when
// stdout carries JSON.
func (u *upload) announce(why string) {
	w := u.e.stdout
	if u.f.asJSON {
		w = u.e.stderr
	}
	fmt.Fprintf(w, "key           %s\n              %s\n", u.rec.Key, termsafe.String(why))
}

// send uploads, records the result in the history and reports it.
func (u *upload) send(ctx context.Context, c *apiclient.Client) int {
	res, err := c.Upload(ctx, u.rec.Key, bytes.NewReader(u.data), int64(len(u.data)))
	final := u.rec
	final.Time = time.Time{} // the history stamps the answer's time
	final.Outcome = outcomeOf(err)
	if res != nil {
		final.HTTPStatus, final.UploadID, final.InterchangeID = res.HTTPStatus, res.UploadID, res.InterchangeID
		final.Status, final.Replay, final.CorrelationID = res.Status, res.Replay, res.CorrelationID
	}
	var ae *apiclient.APIError
	var ne *apiclient.NetworkError
	switch {
	case errors.As(err, &ae):
		final.HTTPStatus, final.ErrorCode, final.CorrelationID = ae.HTTPStatus, ae.Code, ae.CorrelationID
	case errors.As(err, &ne):
		final.CorrelationID = ne.CorrelationID
	}
	recErr := u.store.AppendUpload(final)
	u.fillOut(final, err)
	code := exitOK
	if err != nil {
		code = exitAPI
	}
	if u.f.asJSON {
		if c := emitJSON(u.e, "upload", u.out); c != exitOK && code == exitOK {
			code = c
		}
	} else {
		u.printHuman(final)
	}
	if err != nil {
		fmt.Fprintf(u.e.stderr, "b2bx upload: %s%s\n", termsafe.String(err.Error()), outcomeHint(final.Outcome))
	}
	if recErr != nil {
		fmt.Fprintf(u.e.stderr, "b2bx upload: the result could not be recorded in the upload history: %s; the key numbering may repeat key %s — keep this output\n",
			termsafe.String(recErr.Error()), final.Key)
		if code == exitOK {
			code = exitStorage
		}
	}
	return code
}

// outcomeOf classifies an upload answer for the history: it decides
// whether the next attempt of the same bytes reuses the key.
func outcomeOf(err error) spool.Outcome {
	if err == nil {
		return spool.OutcomeAccepted
	}
	var ae *apiclient.APIError
	if errors.As(err, &ae) {
		switch {
		case ae.HTTPStatus == 409:
			return spool.OutcomeConflict
		case ae.HTTPStatus == 503 || ae.HTTPStatus == 429:
			return spool.OutcomeFailed // the server says it did not act
		case ae.HTTPStatus >= 500:
			return spool.OutcomeUnclear // an internal error may come after storing
		}
		return spool.OutcomeFailed
	}
	var ne *apiclient.NetworkError
	if errors.As(err, &ne) && !ne.Unclear {
		return spool.OutcomeFailed // never reached the server
	}
	return spool.OutcomeUnclear // may or may not have arrived
}

func outcomeHint(o spool.Outcome) string {
	switch o {
	case spool.OutcomeUnclear:
		return "\nThe upload may have arrived. Run the same command again: it reuses the key, so the server cannot create a duplicate."
	case spool.OutcomeConflict:
		return "\nThe key is bound to other bytes or state on the server; the next upload of this file takes the next key number."
	case spool.OutcomeFailed:
		return "\nNothing was accepted. Fix the cause (for 503: wait) and run the same command again; it reuses the key."
	}
	return ""
}

func (u *upload) fillOut(r spool.UploadRecord, err error) {
	u.out = uploadJSON{
		File: r.File, Size: r.Size, SHA256: r.SHA256, Key: r.Key, N: r.N, Decision: u.out.Decision,
		SenderID: r.SenderID, BusinessID: r.BusinessID, HTTPStatus: r.HTTPStatus, UploadID: r.UploadID,
		InterchangeID: r.InterchangeID, Status: r.Status, Replay: r.Replay, Outcome: string(r.Outcome),
		CorrelationID: r.CorrelationID,
	}
	if err != nil {
		u.out.Error = termsafe.String(err.Error())
	}
}

// printHuman writes the result; file and server values are sanitised.
func (u *upload) printHuman(r spool.UploadRecord) {
	w := u.e.stdout
	fmt.Fprintf(w, "file          %s (%d bytes, sha256 %s)\n", termsafe.String(r.File), r.Size, r.SHA256)
	fmt.Fprintf(w, "sender        %s, business id %s\n", termsafe.String(r.SenderID), termsafe.String(r.BusinessID))
	if r.Outcome != spool.OutcomeAccepted {
		fmt.Fprintf(w, "result        %s (HTTP %d)\n", r.Outcome, r.HTTPStatus)
		return
	}
	replay := ""
	if r.Replay {
		replay = ", replay of the earlier upload"
	}
	fmt.Fprintf(w, "result        %s (HTTP %d%s)\n", termsafe.String(r.Status), r.HTTPStatus, replay)
	fmt.Fprintf(w, "upload id     %s\n", termsafe.String(r.UploadID))
	if r.InterchangeID != "" {
		fmt.Fprintf(w, "interchange   %s\n", termsafe.String(r.InterchangeID))
	}
}
