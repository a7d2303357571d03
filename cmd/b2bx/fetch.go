package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/apiclient/worker"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/metrics"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "fetch", summary: "download, verify and store one delivery (--all: every due one); --ack acknowledges it", run: runFetch})
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
	// NotRunBecause names the local cause when the download was stopped
	// on this side (Ctrl-C, the lease ran out, a full disk, a file size
	// limit): every check is "not run", none failed.
	NotRunBecause string `json:"notRunBecause,omitempty"`
	// ClockSkew says how the server's clock disagrees with this
	// machine's, when it does (the lease is counted on the server's).
	ClockSkew     string `json:"clockSkew,omitempty"`
	CorrelationID string `json:"correlationId,omitempty"`
	FailedStep    string `json:"failedStep,omitempty"`
	Error         string `json:"error,omitempty"`
	// Skipped are listed entries the client refused and passed over
	// while looking for this one (raw strings, escaped).
	Skipped []apiclient.SkippedEntry `json:"skipped,omitempty"`
}

// fetchEmptyJSON is the --json output when --next finds nothing due.
type fetchEmptyJSON struct {
	Empty   bool                     `json:"empty"`
	Skipped []apiclient.SkippedEntry `json:"skipped,omitempty"`
	// Relisted are deliveries acknowledged in this run that the server
	// still lists as due (fetch --all passes over them).
	Relisted []string `json:"relisted,omitempty"`
}

// fetchAllJSON is the --json output of fetch --all: one result per
// delivery, in the order processed (the last one failed when the run
// stopped early), and whether the mailbox was emptied.
type fetchAllJSON struct {
	Results  []fetchJSON              `json:"results"`
	Empty    bool                     `json:"empty"`
	Skipped  []apiclient.SkippedEntry `json:"skipped,omitempty"`
	Relisted []string                 `json:"relisted,omitempty"`
}

func runFetch(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "fetch", "(ID | --next | --all --ack)")
	cf := addConnFlags(fs)
	next := fs.Bool("next", false, "fetch the first due delivery")
	all := fs.Bool("all", false, "fetch and acknowledge every due delivery in order, until the mailbox is empty or one fails (needs --ack)")
	ack := fs.Bool("ack", false, "acknowledge after every check passed and the file is stored durably")
	out := fs.String("out", "", "also copy the verified file into `DIR` (durably, before acknowledging)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	var mf fetchMetricsFlags
	mf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	modes := len(pos)
	for _, b := range []bool{*next, *all} {
		if b {
			modes++
		}
	}
	if modes != 1 || len(pos) > 1 {
		return fail(e, "fetch", *asJSON, exitUsage, errors.New("give exactly one delivery ID, or --next for the first due delivery, or --all --ack for every due one"))
	}
	if *all && !*ack {
		return fail(e, "fetch", *asJSON, exitUsage, errors.New("--all needs --ack: without it every due delivery would be claimed and left to its lease"))
	}
	if err := mf.check(*all); err != nil {
		return fail(e, "fetch", *asJSON, exitUsage, err)
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
	tp := startTeamPush(ctx, e, "fetch") // what is stored is queued for the team store, after the local write
	defer tp.finish(teamDrainWait)
	tp.attach(store)
	w := worker.New(ac.client, store, ac.log)
	f := &fetcher{e: e, store: store, ack: *ack, outDir: *out, asJSON: *asJSON,
		reported: map[string]bool{}, conn: t.ConnectionID}
	// The runner writes the seen journal after each step (never between
	// download, checks, store and acknowledge), as the app's does.
	f.r = worker.NewRunner(w.Backend(), worker.RunnerOptions{Journal: store, ConnectionID: t.ConnectionID, SeenError: func(err error) {
		fmt.Fprintf(e.stderr, "b2bx fetch: the seen journal was not written: %s\n", termsafe.String(err.Error()))
	}})
	// The index learns what was stored after the acknowledge and the
	// output: never on the download path.
	defer func() { indexAfter(ctx, e, "fetch", t, f.stored...) }()
	if *all {
		return mf.run(e, f, tp.team(), func() int { return f.all(ctx) })
	}

	var (
		choice worker.Choice
		res    *worker.Result
		er     *entryRun
	)
	opts := func(en apiclient.Entry) worker.ProcessOptions {
		var o worker.ProcessOptions
		o, er = f.options(ctx, en)
		return o
	}
	note := func(c worker.Choice, r *worker.Result, rerr error) {
		choice = c
		if r != nil {
			res = r
		} else {
			err = rerr
		}
	}
	if *next {
		// The runner's order: the head, once.
		err = nil
		if rerr := f.r.Run(ctx, worker.Order{Kind: worker.OrderHead, NoAck: !*ack}, opts, note); res == nil && err == nil {
			err = rerr
		}
	} else if choice, err = f.r.Find(ctx, pos[0]); err == nil {
		var rerr error
		if rerr = f.r.Run(ctx, worker.Order{Kind: worker.OrderEntry, Entries: []apiclient.Entry{choice.Entry}, NoAck: !*ack}, opts,
			func(_ worker.Choice, r *worker.Result, _ error) { res = r }); res == nil {
			err = rerr
		}
	}
	f.reportSkipped(choice.Skipped)
	if errors.Is(err, worker.ErrEmpty) {
		fmt.Fprintln(e.stderr, "b2bx fetch: no due deliveries")
		if *asJSON {
			return emitJSON(e, "fetch", fetchEmptyJSON{Empty: true, Skipped: choice.Skipped})
		}
		return exitOK
	}
	if res == nil {
		return fail(e, "fetch", *asJSON, exitAPI, err)
	}
	j, code := f.result(er, res)
	err = res.Err
	j.Skipped = choice.Skipped
	if *asJSON {
		if c := emitJSON(e, "fetch", j); c != exitOK && code == exitOK {
			code = c
		}
	} else {
		printFetch(e, j, *ack)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx fetch: %s\n", termsafe.String(err.Error()))
	}
	return code
}

// fetcher is one fetch command: the runner and how to report.
type fetcher struct {
	e        *env
	store    *spool.Store
	r        *worker.Runner
	ack      bool
	outDir   string
	asJSON   bool
	reported map[string]bool // refused entries already named on stderr
	conn     string          // the connection ID
	stored   []*spool.Stored // what this command stored, for the index after it
	// mx, when set, counts every delivery of fetch --all (--admin,
	// --metrics-file); began is when the current one started.
	mx    *metrics.Fetch
	began time.Time
}

// all is fetch --all --ack: the runner's All, one report per delivery,
// the exit code of the first that failed (0 when the mailbox was
// emptied).
func (f *fetcher) all(ctx context.Context) int {
	var out fetchAllJSON
	out.Results = []fetchJSON{}
	code, acked := exitOK, 0
	var runs []*entryRun
	_ = f.r.All(ctx, func(e apiclient.Entry) worker.ProcessOptions {
		f.began = time.Now()
		o, er := f.options(ctx, e)
		runs = append(runs, er)
		return o
	}, func(choice worker.Choice, res *worker.Result, err error) {
		f.reportSkipped(choice.Skipped)
		out.Skipped = appendNew(out.Skipped, choice.Skipped)
		out.Relisted = choice.Relisted
		switch {
		case errors.Is(err, worker.ErrEmpty):
			out.Empty = true
			return
		case res == nil:
			code = fail(f.e, "fetch", false, exitAPI, err)
			return
		}
		j, c := f.result(runs[len(runs)-1], res)
		f.count(res)
		out.Results = append(out.Results, j)
		if !f.asJSON {
			if len(out.Results) > 1 {
				fmt.Fprintln(f.e.stdout)
			}
			printFetch(f.e, j, true)
		}
		if err != nil {
			fmt.Fprintf(f.e.stderr, "b2bx fetch: %s\n", termsafe.String(err.Error()))
		}
		if c != exitOK || !f.r.GoOn() {
			code = c
			if code == exitOK { // acknowledged, but something after it failed
				code = exitStorage
			}
			fmt.Fprintf(f.e.stderr, "b2bx fetch: stopped at %s: it did not pass and is not skipped; %d before it acknowledged\n",
				termsafe.String(choice.Entry.DeliveryAttemptID), acked)
			return
		}
		acked++
	})
	if len(out.Relisted) > 0 {
		fmt.Fprintf(f.e.stderr, "b2bx fetch: the server still lists %d deliver%s acknowledged in this run (%s); passed over, not processed again — tell the partner's operator\n",
			len(out.Relisted), human.Word(len(out.Relisted), "y", "ies"), termsafe.String(strings.Join(out.Relisted, ", ")))
	}
	if out.Empty {
		fmt.Fprintf(f.e.stderr, "b2bx fetch: no more due deliveries; %d acknowledged\n", acked)
	}
	if f.asJSON {
		if c := emitJSON(f.e, "fetch", out); c != exitOK && code == exitOK {
			code = c
		}
	}
	return code
}

// appendNew adds the refused entries not listed yet.
func appendNew(have, more []apiclient.SkippedEntry) []apiclient.SkippedEntry {
	for _, s := range more {
		if !slices.ContainsFunc(have, func(h apiclient.SkippedEntry) bool { return h == s }) {
			have = append(have, s)
		}
	}
	return have
}

// reportSkipped tells on stderr which listed entries the client refused,
// each once per command.
func (f *fetcher) reportSkipped(skipped []apiclient.SkippedEntry) {
	var fresh []apiclient.SkippedEntry
	for _, s := range skipped {
		k := fmt.Sprintf("%d\x00%s\x00%s", s.Index, s.DeliveryAttemptID, s.Reason)
		if !f.reported[k] {
			f.reported[k] = true
			fresh = append(fresh, s)
		}
	}
	reportSkipped(f.e, "fetch", fresh)
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

// entryRun is what the options of one entry collect while it runs.
type entryRun struct {
	exported     string
	skew         time.Duration
	stopProgress func()
}

// options are the runner's options for entry: progress on a terminal,
// the clock note, the --out copy (checked before claiming).
func (f *fetcher) options(ctx context.Context, entry apiclient.Entry) (worker.ProcessOptions, *entryRun) {
	e, store, outDir := f.e, f.store, f.outDir
	er := &entryRun{}
	opts := worker.ProcessOptions{Ack: f.ack}
	opts.Claim.OnEvent = func(ev worker.Event) {
		if er.stopProgress != nil {
			er.stopProgress()
			er.stopProgress = nil
		}
		switch ev := ev.(type) {
		case worker.Claimed:
			if er.skew = ev.ClockSkew; er.skew != 0 {
				fmt.Fprintf(e.stderr, "b2bx fetch: %s; the lease is counted on the server's clock\n", worker.SkewNote(er.skew))
			}
		case worker.Downloading:
			if isTerminal(e.stderr) {
				er.stopProgress = startProgress(e.stderr, termsafe.String(entry.DeliveryAttemptID), ev.Progress)
			}
		}
	}
	if outDir != "" {
		// Checked before claiming: an unusable target must not spend a
		// lease and one of the entry's attempts.
		opts.Claim.PreflightExport = func() error { return store.CheckExport(outDir, entry.DeliveryAttemptID) }
		opts.Fetch.Export = func(st *spool.Stored) error {
			p, err := store.ExportContext(ctx, st, outDir)
			er.exported = p
			return err
		}
	}
	return opts, er
}

// result is the JSON view of an entry's result and its exit code.
func (f *fetcher) result(er *entryRun, res *worker.Result) (fetchJSON, int) {
	if er.stopProgress != nil {
		er.stopProgress()
		er.stopProgress = nil
	}
	if res != nil && res.Stored != nil {
		st := res.Stored
		if l, err := f.store.Lookup(f.conn, st.Meta.DeliveryAttemptID); err == nil {
			st = l // with the receipt, when acknowledged
		}
		f.stored = append(f.stored, st)
	}
	j := fetchResult(res)
	j.Out = er.exported
	if er.skew != 0 {
		j.ClockSkew = worker.SkewNote(er.skew)
	}
	return j, fetchExit(res)
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
	j.NotRunBecause = res.NotRunCause()
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
	fmt.Fprintf(w, "size          %d bytes (%s)\n", j.Bytes, human.Bytes(j.Bytes))
	fmt.Fprintf(w, "sha256        %s\n", termsafe.String(j.SHA256))
	c := j.CheckStates
	fmt.Fprintf(w, "checks        sizeHeader %s, sizeListing %s, hashHeader %s, hashListing %s, trailer %s, stored %s\n",
		stateWord(c[apiclient.CheckSizeHeader]), stateWord(c[apiclient.CheckSizeListing]), stateWord(c[apiclient.CheckHashHeader]),
		stateWord(c[apiclient.CheckHashListing]), stateWord(c[apiclient.CheckTrailer]), stateWord(c[worker.CheckStored]))
	if j.NotRunBecause != "" {
		fmt.Fprintf(w, "  not run: the download was %s (nothing is known to be wrong with the delivery)\n", termsafe.String(j.NotRunBecause))
	}
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
