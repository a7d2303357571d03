package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "fetch", summary: "download, verify and store one delivery; --ack acknowledges it", run: runFetch})
}

// fetchChecks are the integrity checks plus the durable store, each true
// only when it ran and passed (checkStates tells failed from not run).
type fetchChecks struct {
	SizeHeader  bool `json:"sizeHeader"`
	SizeListing bool `json:"sizeListing"`
	HashHeader  bool `json:"hashHeader"`
	HashListing bool `json:"hashListing"`
	Trailer     bool `json:"trailer"`
	Stored      bool `json:"stored"`
}

// fetchJSON is the --json output of fetch, on success and on failure. When
// --next finds nothing due the output is {"empty": true} instead.
type fetchJSON struct {
	DeliveryAttemptID string                  `json:"deliveryAttemptId"`
	InterchangeID     string                  `json:"interchangeId,omitempty"`
	MessageType       string                  `json:"messageType"`
	Bytes             int64                   `json:"bytes"`
	SHA256            string                  `json:"sha256"`
	Checks            fetchChecks             `json:"checks"`
	CheckStates       map[string]worker.State `json:"checkStates"` // "passed", "failed" or "not run"
	FailedChecks      []apiclient.CheckResult `json:"failedChecks,omitempty"`
	Path              string                  `json:"path"`
	AlreadyStored     bool                    `json:"alreadyStored"`
	Out               string                  `json:"out,omitempty"`
	Acknowledged      bool                    `json:"acknowledged"`
	ReceiptID         string                  `json:"receiptId"`
	AcknowledgedAt    *time.Time              `json:"acknowledgedAt,omitempty"`
	Replay            bool                    `json:"replay"`
	LeaseExpiresAt    *time.Time              `json:"leaseExpiresAt,omitempty"` // set when claimed but not acknowledged
	CorrelationID     string                  `json:"correlationId,omitempty"`
	FailedStep        string                  `json:"failedStep,omitempty"`
	Error             string                  `json:"error,omitempty"`
	// Skipped are listed entries the client refused and passed over
	// while looking for this one (raw strings, escaped).
	Skipped []apiclient.SkippedEntry `json:"skipped,omitempty"`
}

// fetchEmptyJSON is the --json output when --next finds nothing due.
type fetchEmptyJSON struct {
	Empty   bool                     `json:"empty"`
	Skipped []apiclient.SkippedEntry `json:"skipped,omitempty"`
}

func runFetch(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "fetch", "(ID | --next)")
	cf := addConnFlags(fs)
	next := fs.Bool("next", false, "fetch the first due delivery")
	ack := fs.Bool("ack", false, "acknowledge after every check passed and the file is stored durably")
	out := fs.String("out", "", "also copy the verified file into `DIR` (durably, before acknowledging)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if (len(pos) == 1) == *next || len(pos) > 1 {
		return fail(e, "fetch", *asJSON, exitUsage, errors.New("give exactly one delivery ID, or --next for the first due delivery"))
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	t, err := cf.resolve(ctx, e)
	if err != nil {
		return fail(e, "fetch", *asJSON, exitUsage, err)
	}
	ac, err := newAPIConn(e, t, "fetch")
	if err != nil {
		return fail(e, "fetch", *asJSON, exitUsage, err)
	}
	store, err := openSpool(e, t)
	if err != nil {
		return fail(e, "fetch", *asJSON, exitStorage, err)
	}
	w := worker.New(ac.client, store, ac.log)

	id := ""
	if !*next {
		id = pos[0]
	}
	choice, err := w.Choose(ctx, id)
	reportSkipped(e, "fetch", choice.Skipped)
	if errors.Is(err, worker.ErrEmpty) {
		fmt.Fprintln(e.stderr, "b2bx fetch: no due deliveries")
		if *asJSON {
			return emitJSON(e, "fetch", fetchEmptyJSON{Empty: true, Skipped: choice.Skipped})
		}
		return exitOK
	}
	if err != nil {
		return fail(e, "fetch", *asJSON, exitAPI, err)
	}
	code, stored := fetchEntry(ctx, e, w, store, t.ConnectionID, choice, *ack, *out, *asJSON)
	if stored != nil {
		indexAfter(ctx, e, "fetch", t, stored) // after the acknowledge and the output
	}
	return code
}

// reportSkipped tells on stderr which listed entries the client refused.
func reportSkipped(e *env, name string, skipped []apiclient.SkippedEntry) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(e.stderr, "b2bx %s: %d listed deliveries cannot be processed safely and are left out; tell the partner's operator:\n", name, len(skipped))
	for _, s := range skipped {
		id := termsafe.String(s.DeliveryAttemptID)
		if id == "" {
			id = fmt.Sprintf("(entry %d of its page, no usable ID)", s.Index)
		}
		fmt.Fprintf(e.stderr, "  %s: %s\n", id, termsafe.String(s.Reason))
	}
}

// fetchEntry runs the worker for one listed entry and reports.
func fetchEntry(ctx context.Context, e *env, w *worker.Worker, store *spool.Store, conn string, choice worker.Choice, ack bool, outDir string, asJSON bool) (int, *spool.Stored) {
	entry := choice.Entry
	var exported string
	var stopProgress func()
	opts := worker.Options{Ack: ack}
	opts.OnEvent = func(ev worker.Event) {
		if stopProgress != nil {
			stopProgress()
			stopProgress = nil
		}
		if d, ok := ev.(worker.Downloading); ok && isTerminal(e.stderr) {
			stopProgress = startProgress(e.stderr, termsafe.String(entry.DeliveryAttemptID), d.Progress)
		}
	}
	if outDir != "" {
		// Checked before claiming: an unusable target must not spend a
		// lease and one of the entry's attempts.
		opts.PreflightExport = func() error { return store.CheckExport(outDir, entry.DeliveryAttemptID) }
		opts.Export = func(st *spool.Stored) error {
			p, err := store.ExportContext(ctx, st, outDir)
			exported = p
			return err
		}
	}
	res, err := w.Process(ctx, entry, opts)
	if stopProgress != nil {
		stopProgress()
	}
	noteSeen(e, store, conn, res) // after the worker's steps: never between download, checks, store and acknowledge
	j := fetchResult(res)
	j.Out, j.Skipped = exported, choice.Skipped
	code := fetchExit(res)
	if asJSON {
		if c := emitJSON(e, "fetch", j); c != exitOK && code == exitOK {
			code = c
		}
	} else {
		printFetch(e, j, ack)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx fetch: %s\n", termsafe.String(err.Error()))
	}
	if res.Stored != nil {
		if st, lerr := store.Lookup(conn, res.Stored.Meta.DeliveryAttemptID); lerr == nil {
			return code, st // with the receipt, when acknowledged
		}
	}
	return code, res.Stored
}

// fetchExit maps the worker's failure class to the exit code: 5 for local
// storage, 4 for a payload that failed verification or broke off
// mid-stream (nothing acknowledged), 3 for API answers and network
// failures.
func fetchExit(res *worker.Result) int {
	switch worker.Classify(res) {
	case worker.ClassOK:
		return exitOK
	case worker.ClassStorage:
		return exitStorage
	case worker.ClassIntegrity:
		return exitIntegrity
	}
	return exitAPI
}

func fetchResult(res *worker.Result) fetchJSON {
	en := res.Entry
	j := fetchJSON{
		DeliveryAttemptID: en.DeliveryAttemptID, InterchangeID: en.InterchangeID, MessageType: en.MessageType,
		Bytes: en.PayloadSize, SHA256: en.PayloadSHA256, CorrelationID: res.CorrelationID,
		FailedStep: string(res.FailedStep), Acknowledged: res.Acknowledged,
		CheckStates: map[string]worker.State{},
	}
	passed := map[string]*bool{apiclient.CheckSizeHeader: &j.Checks.SizeHeader, apiclient.CheckSizeListing: &j.Checks.SizeListing,
		apiclient.CheckHashHeader: &j.Checks.HashHeader, apiclient.CheckHashListing: &j.Checks.HashListing,
		apiclient.CheckTrailer: &j.Checks.Trailer, worker.CheckStored: &j.Checks.Stored}
	for _, c := range res.Checks() {
		j.CheckStates[c.Name] = c.State
		*passed[c.Name] = c.State == worker.StatePassed
	}
	if r := res.Report; r != nil {
		j.Bytes, j.SHA256 = r.Bytes, r.SHA256
		j.FailedChecks = r.Failed()
	}
	if st := res.Stored; st != nil {
		j.Path, j.AlreadyStored = st.Path, st.AlreadyStored
	}
	if rc := res.Receipt; rc != nil {
		at := rc.AcknowledgedAt.UTC()
		j.ReceiptID, j.Replay, j.AcknowledgedAt = rc.ReceiptID, rc.Replay, &at
	}
	if !res.Acknowledged && !res.LeaseExpiresAt.IsZero() {
		at := res.LeaseExpiresAt.UTC()
		j.LeaseExpiresAt = &at
	}
	if res.Err != nil {
		j.Error = termsafe.String(res.Err.Error())
	}
	return j
}

// stateWord is a check's state in the human output: a check that never
// ran (nothing was downloaded, or an earlier step failed) is "not run",
// not a failure.
func stateWord(s worker.State) string { return s.Label() }

// printFetch writes the human summary; server values are sanitised.
func printFetch(e *env, j fetchJSON, ackRequested bool) {
	w := e.stdout
	fmt.Fprintf(w, "delivery      %s (%s)\n", termsafe.String(j.DeliveryAttemptID), termsafe.String(j.MessageType))
	fmt.Fprintf(w, "size          %d bytes (%s)\n", j.Bytes, humanBytes(j.Bytes))
	fmt.Fprintf(w, "sha256        %s\n", termsafe.String(j.SHA256))
	c := j.CheckStates
	fmt.Fprintf(w, "checks        sizeHeader %s, sizeListing %s, hashHeader %s, hashListing %s, trailer %s, stored %s\n",
		stateWord(c[apiclient.CheckSizeHeader]), stateWord(c[apiclient.CheckSizeListing]), stateWord(c[apiclient.CheckHashHeader]),
		stateWord(c[apiclient.CheckHashListing]), stateWord(c[apiclient.CheckTrailer]), stateWord(c[worker.CheckStored]))
	for _, f := range j.FailedChecks {
		fmt.Fprintf(w, "  %-11s want %s, got %s", f.Name, termsafe.String(f.Want), termsafe.String(f.Got))
		if f.Detail != "" {
			fmt.Fprintf(w, " (%s)", termsafe.String(f.Detail))
		}
		fmt.Fprintln(w)
	}
	if j.Path != "" {
		note := ""
		if j.AlreadyStored {
			note = " (already stored, same bytes)"
		}
		fmt.Fprintf(w, "stored        %s%s\n", termsafe.String(j.Path), note)
	}
	if j.Out != "" {
		fmt.Fprintf(w, "copied to     %s\n", termsafe.String(j.Out))
	}
	switch {
	case j.Acknowledged:
		replay := ""
		if j.Replay {
			replay = " (replay: it was already acknowledged)"
		}
		fmt.Fprintf(w, "acknowledged  receipt %s%s\n", termsafe.String(j.ReceiptID), replay)
	case j.LeaseExpiresAt != nil && j.FailedStep == "" && !ackRequested:
		fmt.Fprintf(w, "acknowledged  no (not requested: the lease expires at %s, then the delivery is due again; fetch it with --ack)\n", j.LeaseExpiresAt.Format(time.RFC3339))
	default:
		fmt.Fprintln(w, "acknowledged  no")
	}
}

// noteSeen records in the seen journal what the worker saw of an entry it
// did not store and acknowledge: the lease taken, the payload refused by
// a check, the step that failed. A stored delivery's own sidecar tells
// the rest. Failing to write the journal loses a line of the story only.
func noteSeen(e *env, store *spool.Store, conn string, res *worker.Result) {
	if res == nil || res.Acknowledged || res.Entry.DeliveryAttemptID == "" {
		return
	}
	rec := spool.SeenRecord{ConnectionID: conn, DeliveryAttemptID: res.Entry.DeliveryAttemptID, InterchangeID: res.Entry.InterchangeID,
		MessageType: res.Entry.MessageType, CreatedAt: res.Entry.CreatedAt, LeaseExpiresAt: res.LeaseExpiresAt}
	switch {
	case res.Report != nil && len(res.Report.Failed()) > 0:
		rec.State, rec.Step = spool.SeenRefused, string(res.FailedStep)
		for _, f := range res.Report.Failed() {
			rec.Checks = append(rec.Checks, f.Name)
		}
	case res.FailedStep != "":
		rec.State, rec.Step = spool.SeenFailed, string(res.FailedStep)
	case res.Stored != nil:
		return // stored, not acknowledged (no --ack): the sidecar says so
	case !res.LeaseExpiresAt.IsZero():
		rec.State = spool.SeenClaimed
	default:
		return
	}
	if res.Err != nil {
		rec.Error = res.Err.Error()
	}
	if rec.ConnectionID == "" {
		return
	}
	if err := store.NoteSeen(rec); err != nil {
		fmt.Fprintf(e.stderr, "b2bx fetch: the seen journal was not written: %s\n", termsafe.String(err.Error()))
	}
}
