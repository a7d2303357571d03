package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
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
	Fixes         string `json:"fixes,omitempty"` // the upload this one fixes (--fixes)
	Error         string `json:"error,omitempty"`
}

type uploadFlags struct {
	key            string
	replay, newKey bool
	asJSON         bool
	fixes          string // --fixes UPLOAD-ID
	force          bool   // --force: send bytes identical to a rejected upload, or in another directory
	mig            string // --mig: the partner rules file
}

// uploadCmd is one upload command's state; the work is the upload
// package's (the app's upload screen calls the same code).
type uploadCmd struct {
	e    *env
	f    uploadFlags
	plan *orders.Plan
	out  uploadJSON
	// resendOf says which upload this one fixes ("resend of upload …").
	resendOf string
	// linker reads the link input of the upload's connection (nil: a
	// fresh index read per question)
	linker *track.Linker
}

func runUpload(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "upload", "FILE")
	cf := addConnFlags(fs)
	var f uploadFlags
	fs.StringVar(&f.key, "key", "", "use this Idempotency-Key instead of generating one (`KEY`: 1-200 of A-Z a-z 0-9 . _ : -)")
	fs.BoolVar(&f.replay, "replay", false, "if these bytes were already accepted: send them again under the same key (the server answers replay)")
	fs.BoolVar(&f.newKey, "new", false, "if these bytes were already accepted: a new upload under the next key number")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON (the key goes to stderr before sending)")
	fs.StringVar(&f.fixes, "fixes", "", "this file fixes the rejected upload `UPLOAD-ID` (its upload id or key): recorded in the history as a resend of it")
	fs.BoolVar(&f.force, "force", false, "send even if the bytes are identical to an upload the partner rejected, or the ORDERS is in another directory than the profile's")
	fs.StringVar(&f.mig, "mig", "", "check the partner's rules in `FILE` (TOML) instead of the profile's mig")
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
	opts, err := orders.ConnectionOptions(t.Directory, cmp.Or(f.mig, t.MIG), f.force)
	if err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	store, err := openSpool(e, t)
	if err != nil {
		return fail(e, "upload", f.asJSON, exitStorage, err)
	}
	// the key plan counts the team's uploads when a team store is set
	team, note := teamstore.ForKeyPlans(ctx, e.getenv, func() (credentials.SecretStore, error) { return teamSecrets(e) }, store)
	if note != "" {
		fmt.Fprintf(e.stderr, "b2bx upload: %s\n", note)
	}
	if team != nil {
		defer team.Close()
	}
	tp := startTeamPush(ctx, e, "upload") // the history's records are queued for the team store
	defer tp.finish(teamDrainWait)
	tp.attach(store)
	// the pre-flight's history and the resend guard read one index, opened
	// and synced once
	linker := track.NewLinker(session.Env{Getenv: e.getenv}, store, t.ConnectionID)
	defer linker.Close()
	opts = opts.WithHistoryVerdicts(ctx, store, t.ConnectionID, linker.Verdicts())
	pf, err := orders.InspectWith(ctx, pos[0], opts)
	if err == nil {
		err = pf.Problem
	}
	if err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	for _, c := range pf.Warnings() {
		fmt.Fprintf(e.stderr, "b2bx upload: warning: %s\n", c.Text) // Text is terminal-safe
	}
	ac, err := newAPIConn(e, t, "upload")
	if err != nil {
		return fail(e, "upload", f.asJSON, exitUsage, err)
	}
	u := &uploadCmd{e: e, f: f, linker: linker}
	if u.plan, err = orders.NewPlan(store, t.ConnectionID, pf); err != nil {
		return fail(e, "upload", f.asJSON, exitStorage, err)
	}
	guarded := u.guardResend(ctx, store, t.ConnectionID)
	linker.Close() // asked: the index is not held through the send
	if guarded != exitOK {
		return guarded
	}
	if team != nil && !u.plan.Preflight.Blocked() { // the same rule over what anyone on the team sent and fetched
		sha := u.plan.Preflight.SHA256
		l, err := team.LinkedFor(ctx, store, t.ConnectionID, orders.Selection{SHAs: []string{sha}})
		if err != nil {
			return fail(e, "upload", f.asJSON, exitStorage, fmt.Errorf("asking the team store about these bytes failed, nothing was sent: %w", err))
		}
		if err := orders.Guard(l, sha, nil, false); err != nil {
			if !f.force {
				return fail(e, "upload", f.asJSON, exitUsage, err)
			}
			fmt.Fprintln(e.stderr, "b2bx upload: --force: sending bytes identical to an upload the partner rejected (in the team store)")
		}
	}
	if code := u.reserveKey(); code != exitOK {
		return code
	}
	if team != nil { // the key reserved in the team store, then a colleague may plan the next
		tp.pushNow(teamDrainWait)
		team.ReleaseKeys()
	}
	code := u.send(ctx, ac.client)
	indexAfter(ctx, e, "upload", t) // after the result is recorded and shown
	return code
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

// reserveKey settles the key (from --key, or from the history with the
// operator's choice for accepted bytes) and records it as pending before
// anything is sent, then shows it.
func (u *uploadCmd) reserveKey() int {
	p := u.plan
	if u.f.key != "" {
		if err := p.SetKey(u.f.key); err != nil {
			return fail(u.e, "upload", u.f.asJSON, exitUsage, fmt.Errorf("--key: %w", err))
		}
		if err := p.Reserve(); err != nil {
			return fail(u.e, "upload", u.f.asJSON, exitStorage, fmt.Errorf("recording the upload in the history failed, nothing was sent: %w", err))
		}
		u.out.Decision = p.DecisionName()
		u.announce("given with --key")
		return exitOK
	}
	if p.NeedsChoice() {
		choice := orders.ChoiceAbort
		switch {
		case u.f.replay:
			choice = orders.ChoiceReplay
		case u.f.newKey:
			choice = orders.ChoiceNew
		default:
			var code int
			if choice, code = u.askChoice(); code != exitOK {
				return code
			}
		}
		if err := p.Choose(choice); err != nil {
			return fail(u.e, "upload", u.f.asJSON, exitUsage, err)
		}
	}
	if err := p.Reserve(); err != nil {
		if errors.Is(err, orders.ErrHistoryChanged) {
			err = errors.New("the upload history changed while choosing; run the command again")
		}
		return fail(u.e, "upload", u.f.asJSON, exitStorage, fmt.Errorf("choosing the idempotency key from the upload history failed, nothing was sent: %w", err))
	}
	u.out.Decision = p.DecisionName()
	why := p.Explain()
	if (u.f.replay || u.f.newKey) && !p.CanChoose() {
		why += "; --replay/--new only apply to bytes that were already accepted"
	}
	u.announce(why)
	return exitOK
}

// askChoice asks the operator, on a terminal only, whether accepted bytes
// are a replay or a new upload.
func (u *uploadCmd) askChoice() (orders.Choice, int) {
	p := u.plan.Decision.Previous
	prev := fmt.Sprintf("key %s (upload %s, %s)", termsafe.String(p.Key), termsafe.String(p.UploadID), p.Time.Format("2006-01-02 15:04:05Z07:00"))
	if !isTerminal(u.e.stdin) {
		return 0, fail(u.e, "upload", u.f.asJSON, exitUsage, fmt.Errorf(
			"these bytes were already accepted under %s; nothing was sent. Choose: --replay sends them again under the same key (the server answers replay, no new order), --new uploads them as a new order under key %s", prev, u.plan.NewKey))
	}
	fmt.Fprintf(u.e.stderr, "These bytes were already accepted under %s.\n  r  replay: same key; the server answers replay, no new order\n  n  new upload: key %s; the partner receives the order again\nReplay, new, or abort? [r/n/N] ", prev, u.plan.NewKey)
	line, _ := bufio.NewReader(u.e.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "r", "replay":
		return orders.ChoiceReplay, exitOK
	case "n", "new":
		return orders.ChoiceNew, exitOK
	}
	fmt.Fprintln(u.e.stderr, "aborted; nothing was sent")
	return 0, exitUsage
}

// announce shows the key before it is sent: on stdout, or on stderr when
// stdout carries JSON.
func (u *uploadCmd) announce(why string) {
	w := u.e.stdout
	if u.f.asJSON {
		w = u.e.stderr
	}
	fmt.Fprintf(w, "key           %s\n              %s\n", u.plan.Key, termsafe.String(why))
}

// send uploads, records the result in the history and reports it.
func (u *uploadCmd) send(ctx context.Context, c *apiclient.Client) int {
	o, err := orders.Send(ctx, c, u.plan)
	if err != nil {
		return fail(u.e, "upload", u.f.asJSON, exitStorage, err)
	}
	final := o.Record
	u.fillOut(final, o.Err)
	code := exitOK
	if o.Err != nil {
		code = exitAPI
	}
	if u.f.asJSON {
		if c := emitJSON(u.e, "upload", u.out); c != exitOK && code == exitOK {
			code = c
		}
	} else {
		u.printHuman(final)
	}
	if o.Err != nil {
		hint := orders.Hint(final.Outcome, "run the same command again")
		if hint != "" {
			hint = "\n" + hint
		}
		fmt.Fprintf(u.e.stderr, "b2bx upload: %s%s\n", termsafe.String(o.Err.Error()), hint)
	}
	if o.RecordErr != nil {
		fmt.Fprintf(u.e.stderr, "b2bx upload: the result could not be recorded in the upload history: %s; the key numbering may repeat key %s — keep this output\n",
			termsafe.String(o.RecordErr.Error()), final.Key)
		if code == exitOK {
			code = exitStorage
		}
	}
	return code
}

func (u *uploadCmd) fillOut(r spool.UploadRecord, err error) {
	u.out = uploadJSON{
		File: r.File, Size: r.Size, SHA256: r.SHA256, Key: r.Key, N: r.N, Decision: u.out.Decision,
		SenderID: r.SenderID, BusinessID: r.BusinessID, HTTPStatus: r.HTTPStatus, UploadID: r.UploadID,
		InterchangeID: r.InterchangeID, Status: r.Status, Replay: r.Replay, Outcome: string(r.Outcome),
		CorrelationID: r.CorrelationID, Fixes: r.Fixes,
	}
	if err != nil {
		u.out.Error = termsafe.String(err.Error())
	}
}

// printHuman writes the result; file and server values are sanitised.
func (u *uploadCmd) printHuman(r spool.UploadRecord) {
	w := u.e.stdout
	fmt.Fprintf(w, "file          %s (%d bytes, sha256 %s)\n", termsafe.String(r.File), r.Size, r.SHA256)
	fmt.Fprintf(w, "sender        %s, business id %s\n", termsafe.String(r.SenderID), termsafe.String(r.BusinessID))
	if u.resendOf != "" {
		fmt.Fprintf(w, "fixes         %s\n", u.resendOf)
	}
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
