package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/teamstore"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "find", summary: "find a business document (order, interchange, GLN, key, ID) across every connection; --timeline, --overdue", run: runFind})
	register(&command{name: "index", summary: "bring the tracking index up to date with the stored files; --rebuild builds it from scratch", run: runIndex})
}

// findJSON is the --json output of find.
type findJSON struct {
	Query         string              `json:"query"`
	Conversations []conversationJSON  `json:"conversations"`
	Truncated     bool                `json:"truncated"`
	Overdue       []track.UploadState `json:"overdue,omitempty"`
}

type conversationJSON struct {
	track.Conversation
	Flag    string       `json:"flag"`
	Summary string       `json:"summary"`
	Steps   []track.Step `json:"steps,omitempty"`
}

// overdueJSON is the --json output of find --overdue.
type overdueJSON struct {
	Overdue     []track.UploadState `json:"overdue"`
	NeedsAction []track.UploadState `json:"needsAction"`
}

// openMachineIndex loads the profiles (no secrets) and opens and syncs
// the index, telling a rebuild once on stderr; when the index file cannot
// be used, the stored files answer (track.OpenQuery says so once).
func openMachineIndex(ctx context.Context, e *env, name string) (*track.Machine, *track.Index, error) {
	m, err := track.LoadMachine(session.Env{Getenv: e.getenv, Warn: func(w string) {
		fmt.Fprintf(e.stderr, "b2bx %s: warning: %s\n", name, termsafe.String(w))
	}})
	if err != nil {
		return nil, nil, err
	}
	x, err := m.OpenQuery(ctx, func(msg string) { fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, termsafe.String(msg)) })
	if err != nil {
		return nil, nil, err
	}
	return m, x, nil
}

// openTeamIndex is the team store's index and the profiles when [store]
// url is set and the store answers; else x is nil (saying once on stderr
// why the team's is not used) and this machine's index is the caller's
// to open. close is never nil.
func openTeamIndex(ctx context.Context, e *env, name string) (*track.Machine, *track.Index, func(), error) {
	m, _, x, closeTeam, err := openTeam(ctx, e, name)
	return m, x, closeTeam, err
}

// openTeam is openTeamIndex with the open team store too (nil with the
// index).
func openTeam(ctx context.Context, e *env, name string) (*track.Machine, *teamstore.Store, *track.Index, func(), error) {
	s, tx, closeTeam, note := teamstore.OpenTeam(ctx, e.getenv, func() (credentials.SecretStore, error) { return teamSecrets(e) })
	if note != "" {
		fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, note)
	}
	if tx == nil {
		return nil, nil, nil, func() {}, nil
	}
	m, err := track.LoadMachine(session.Env{Getenv: e.getenv, Warn: func(w string) {
		fmt.Fprintf(e.stderr, "b2bx %s: warning: %s\n", name, termsafe.String(w))
	}})
	if err != nil {
		closeTeam()
		return nil, nil, nil, nil, err
	}
	return m, s, tx, closeTeam, nil
}

// openFindIndex is the team store's index when [store] url is set and
// the store answers, else this machine's (saying once why the team's is
// not used).
func openFindIndex(ctx context.Context, e *env, name string) (*track.Machine, *track.Index, func(), error) {
	m, tx, closeTeam, err := openTeamIndex(ctx, e, name)
	if err != nil || tx != nil {
		return m, tx, closeTeam, err
	}
	m, x, err := openMachineIndex(ctx, e, name)
	if err != nil {
		return nil, nil, nil, err
	}
	return m, x, func() { x.Close() }, nil
}

func runFind(ctx context.Context, e *env, args []string) int {
	const name = "find"
	fs := newFlagSet(e, name, "QUERY  (po:NUMBER, icr:REF, gln:GLN, key:KEY, id:ID, type:TYPE, or a bare word; a trailing * matches a prefix)")
	conn := fs.String("c", "", "only the connection of profile `NAME`")
	since := fs.Duration("since", 0, "only what happened in the last `DURATION` (e.g. 72h)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	timeline := fs.Bool("timeline", false, "tell the newest matching conversation step by step, with each step's source")
	overdue := fs.Bool("overdue", false, "list accepted uploads whose CONTRL or ORDRSP is late (sla.contrl, sla.ordrsp) or that an answer rejected; exit 1 when there is any")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *overdue && (len(pos) > 0 || *timeline) {
		return fail(e, name, *asJSON, exitUsage, errors.New("--overdue takes no QUERY and no --timeline"))
	}
	if !*overdue && len(pos) != 1 {
		return fail(e, name, *asJSON, exitUsage, errors.New("give one QUERY (quote it when it has spaces), e.g. b2bx find po:PO-4711"))
	}
	if *since < 0 {
		return fail(e, name, *asJSON, exitUsage, errors.New("--since must be a positive duration, e.g. 72h"))
	}
	var q track.Query
	if !*overdue {
		if q, err = track.ParseQuery(pos[0]); err != nil {
			return fail(e, name, *asJSON, exitUsage, err)
		}
	}
	m, x, closeIndex, err := openFindIndex(ctx, e, name)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	defer closeIndex()
	if *conn != "" {
		if q.Conn, err = m.Connection(*conn); err != nil {
			return fail(e, name, *asJSON, exitUsage, err)
		}
	}
	if *since > 0 {
		q.Since = time.Now().Add(-*since)
	}
	if *overdue {
		return runOverdue(ctx, e, m, x, q, *asJSON)
	}
	res, err := x.Find(ctx, q, m.SLA())
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	res.AddContractFindings(m.Directory)
	if *timeline {
		return printTimeline(ctx, e, x, res, *asJSON)
	}
	if *asJSON {
		out := findJSON{Query: q.Text, Conversations: []conversationJSON{}, Truncated: res.Truncated}
		for _, c := range res.Conversations {
			out.Conversations = append(out.Conversations, conversationJSON{Conversation: c, Flag: c.State.Flag(), Summary: c.State.Summary()})
		}
		return emitJSON(e, name, out)
	}
	printConversations(e, m, res, x.Team())
	return exitOK
}

// printConversations writes one block per conversation, newest first: a
// heading with the state, then its items as a table like the mailbox's.
func printConversations(e *env, m *track.Machine, res track.Result, team bool) {
	if len(res.Conversations) == 0 {
		fmt.Fprintf(e.stdout, "nothing stored matches %s\n", termsafe.String(res.Query.Text))
		return
	}
	// one write per 64 KiB, not one per table cell (a terminal or pipe
	// write is a system call)
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	for i, c := range res.Conversations {
		if i > 0 {
			fmt.Fprintln(out)
		}
		head := termsafe.String(c.Label) + " — " + connNames(m, c.Conns)
		if f := c.State.Flag(); f != "" {
			head += " — " + strings.ToUpper(f) + ": " + termsafe.String(c.State.Summary())
		}
		fmt.Fprintln(out, head)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		by := ""
		if team { // the team store's items say who
			by = "\tBY"
		}
		fmt.Fprintln(tw, "  WHEN\tCONNECTION\tKIND\tTYPE\tREF\tSTATE\tSTATUS"+by)
		for _, it := range c.Items {
			if team {
				by = "\t" + termsafe.String(it.By.String())
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", when(it.At), termsafe.String(connName(m, it.Conn)), it.Kind,
				termsafe.String(it.Type), termsafe.String(itemRef(it)), termsafe.String(it.State), termsafe.String(it.Status), by)
		}
		_ = tw.Flush()
		for _, it := range c.Items {
			for _, f := range it.Contract {
				fmt.Fprintf(out, "  ! contract finding, %s %s: %s\n", it.Kind, termsafe.String(itemRef(it)), termsafe.String(f))
			}
		}
	}
	fmt.Fprintf(out, "\n%s", human.Count(len(res.Conversations), "conversation", "conversations"))
	if res.Truncated {
		fmt.Fprint(out, " (more matched: narrow the query with po:, icr:, -c or --since)")
	}
	fmt.Fprintln(out, "; b2bx find --timeline QUERY tells one step by step")
}

// itemRef is an item's reference, with its part of a wide delivery.
func itemRef(it track.Item) string {
	if it.Part > 0 {
		return fmt.Sprintf("%s part %d", it.Ref, it.Part)
	}
	return it.Ref
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func connName(m *track.Machine, conn string) string {
	if conn == "" {
		return "-"
	}
	if n, ok := m.Names[conn]; ok {
		return n
	}
	return conn
}

func connNames(m *track.Machine, conns []string) string {
	if len(conns) == 0 {
		return "no connection"
	}
	names := make([]string, len(conns))
	for i, c := range conns {
		names[i] = termsafe.String(connName(m, c))
	}
	return strings.Join(names, ", ")
}

func printTimeline(ctx context.Context, e *env, x *track.Index, res track.Result, asJSON bool) int {
	if len(res.Conversations) == 0 {
		if asJSON {
			return emitJSON(e, "find", findJSON{Query: res.Query.Text, Conversations: []conversationJSON{}})
		}
		fmt.Fprintf(e.stdout, "nothing stored matches %s\n", termsafe.String(res.Query.Text))
		return exitOK
	}
	c := res.Conversations[0]
	steps := x.Timeline(ctx, c)
	if asJSON {
		return emitJSON(e, "find", findJSON{Query: res.Query.Text, Truncated: res.Truncated,
			Conversations: []conversationJSON{{Conversation: c, Flag: c.State.Flag(), Summary: c.State.Summary(), Steps: steps}}})
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	for _, l := range track.TimelineText(c, steps) {
		fmt.Fprintln(out, l)
	}
	if n := len(res.Conversations) - 1; n > 0 {
		fmt.Fprintf(out, "%d more conversations match: b2bx find %s lists them; narrow with po: or icr:\n", n, termsafe.String(res.Query.Text))
	}
	return exitOK
}

func runOverdue(ctx context.Context, e *env, m *track.Machine, x *track.Index, q track.Query, asJSON bool) int {
	sts, err := x.Overdue(ctx, q.Since, q.Conn, m.SLA())
	if err != nil {
		return fail(e, "find", asJSON, exitStorage, err)
	}
	out := overdueJSON{Overdue: []track.UploadState{}, NeedsAction: []track.UploadState{}}
	team := false // a team store's uploads say who sent them
	for i := range sts {
		sts[i].By = sts[i].By.Clean() // terminal-safe, in the table and the JSON
		team = team || !sts[i].By.IsZero()
	}
	for _, s := range sts {
		if s.IsNeedsAction() {
			out.NeedsAction = append(out.NeedsAction, s)
		} else {
			out.Overdue = append(out.Overdue, s)
		}
	}
	code := exitOK
	if len(sts) > 0 {
		code = exitFileError // 1: something needs a person (cron, monitoring)
	}
	if asJSON {
		if c := emitJSON(e, "find", out); c != exitOK {
			return c
		}
		return code
	}
	if len(sts) == 0 {
		fmt.Fprintln(e.stdout, "nothing overdue, nothing needs action")
		return code
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	by := ""
	if team {
		by = "\tBY"
	}
	fmt.Fprintln(tw, "STATE\tUPLOADED\tCONNECTION\tORDERS\tKEY\tWHY"+by)
	for _, s := range append(out.NeedsAction, out.Overdue...) {
		if team {
			by = "\t" + s.By.String() // Clean above
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\n", s.Flag(), when(s.At), termsafe.String(connName(m, s.Conn)),
			termsafe.String(strings.Join(s.Orders, ", ")), termsafe.String(s.Key), termsafe.String(s.Summary()), by)
	}
	_ = tw.Flush()
	fmt.Fprintf(e.stdout, "%d overdue, %d need action\n", len(out.Overdue), len(out.NeedsAction))
	return code
}

func runIndex(ctx context.Context, e *env, args []string) int {
	const name = "index"
	fs := newFlagSet(e, name, "")
	rebuild := fs.Bool("rebuild", false, "empty the index and build it from the stored files")
	asJSON := fs.Bool("json", false, "print what was done as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, name, *asJSON, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0])))
	}
	m, err := track.LoadMachine(session.Env{Getenv: e.getenv})
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	start := time.Now()
	x, err := m.Open(ctx, func(msg string) { fmt.Fprintf(e.stderr, "b2bx %s: %s\n", name, termsafe.String(msg)) })
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	defer x.Close()
	var st track.Stats
	if *rebuild {
		st, err = x.Rebuild(ctx, "asked for with --rebuild")
	} else {
		st, err = x.Sync(ctx)
	}
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	sources, items, keys, err := x.Backend().Counts(ctx)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	took := time.Since(start).Round(time.Millisecond)
	if *asJSON {
		return emitJSON(e, name, struct {
			track.Stats
			Sources int64    `json:"sources"`
			Items   int64    `json:"items"`
			Keys    int64    `json:"keys"`
			Path    string   `json:"path"`
			Roots   []string `json:"roots"`
			Millis  int64    `json:"ms"`
		}{st, sources, items, keys, track.DBPath(m.Dir), x.Roots(), took.Milliseconds()})
	}
	fmt.Fprintf(e.stdout, "index      %s\n", termsafe.String(track.DBPath(m.Dir)))
	fmt.Fprintf(e.stdout, "roots      %s\n", termsafe.String(strings.Join(x.Roots(), ", ")))
	fmt.Fprintf(e.stdout, "read       %d files (%d gone, %d connections unchanged) in %s\n", st.Read, st.Forgot, st.Skipped, took)
	fmt.Fprintf(e.stdout, "indexed    %d files, %d items, %d keys\n", sources, items, keys)
	return exitOK
}

// indexAfter brings the index up to date for one connection after a
// command stored, uploaded or answered something: after the command's own
// work and output, bounded, and never failing the command (the index is
// derived; a failure marks it stale and it is rebuilt next time).
func indexAfter(ctx context.Context, e *env, name string, t connTarget, stored ...*spool.Stored) {
	root, err := session.StoreRoot(t, e.getenv)
	if err != nil {
		return
	}
	sts := make([]spool.Stored, len(stored))
	for i, st := range stored {
		sts[i] = *st
	}
	// the same update the app runs after a store or an upload (track.IndexAfter)
	if err := track.IndexAfter(ctx, session.Env{Getenv: e.getenv}, root, t.ConnectionID, sts...); err != nil {
		fmt.Fprintf(e.stderr, "b2bx %s: the tracking index was not updated (%s); it is brought up to date by the next b2bx find\n", name, termsafe.String(err.Error()))
	}
}

// noteCaptures tells the tracking index which captures the inspector read,
// so their events join their orders' timelines. Failing is only a warning.
func noteCaptures(ctx context.Context, e *env, paths []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	m, err := track.LoadMachine(session.Env{Getenv: e.getenv})
	if err != nil {
		return
	}
	x, err := m.Open(ctx, nil)
	if err == nil {
		defer x.Close()
		err = x.NoteCaptures(ctx, paths)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx event inspect: the tracking index did not note the captures (%s)\n", termsafe.String(err.Error()))
	}
}
