package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/export"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/internal/track"
)

func init() {
	register(&command{name: "uploads", summary: "the upload history with the partner's answers and resends (--json, -o FILE.csv|.json)", run: runUploads})
}

// uploadsJSON is one attempt of the --json output.
type uploadsJSON struct {
	spool.UploadRecord
	Answers  string   `json:"answers,omitempty"`  // "answered by CONTRL: rejected (1 error)"
	Rejected bool     `json:"rejected"`           // an answer rejects it
	ResendOf string   `json:"resendOf,omitempty"` // "resend of upload … (key …)"
	FixedBy  []string `json:"fixedBy,omitempty"`  // the uploads that fix it
}

// runUploads lists the connection's upload attempts, newest first, from
// the local store only (no request, no secret): each with how the
// partner answered, whether it is a resend of a rejected upload and
// which uploads fixed it. -o writes the same table as CSV or JSON.
func runUploads(ctx context.Context, e *env, args []string) int {
	const name = "uploads"
	fs := newFlagSet(e, name, "")
	profile := fs.String("c", "", "connection profile `NAME` (see 'b2bx conn ls')")
	conn := fs.String("connection", "", "connection `ID` (instead of -c)")
	asJSON := fs.Bool("json", false, "print the attempts as JSON")
	out := fs.String("o", "", "also write the table to `FILE` (.csv or .json)")
	force := fs.Bool("force", false, "with -o: overwrite an existing FILE")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, name, *asJSON, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0])))
	}
	t, store, code, err := localStore(e, *profile, *conn)
	if err != nil {
		return fail(e, name, *asJSON, code, err)
	}
	hist, err := store.Uploads(t.ConnectionID)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	l, err := uploadsLinked(ctx, e, name, store, t.ConnectionID)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	attempts, err := orders.History(store, t.ConnectionID)
	if err != nil {
		return fail(e, name, *asJSON, exitStorage, err)
	}
	rejected := map[string]bool{}
	for _, r := range orders.Rejections(l) {
		rejected[orders.FixesRef(r.Upload)] = true
	}
	rows := make([]uploadsJSON, len(attempts))
	for i, r := range attempts {
		row := uploadsJSON{UploadRecord: r, ResendOf: orders.ResendText(hist, r), Rejected: r.UploadID != "" && rejected[r.UploadID]}
		for k, u := range l.Uploads {
			if u.UploadID != "" && u.UploadID == r.UploadID {
				row.Answers = l.UploadText(k)
			}
		}
		for _, f := range orders.FixedBy(hist, r) {
			row.FixedBy = append(row.FixedBy, orders.FixesRef(f))
		}
		rows[i] = row
	}
	if *out != "" {
		tb := export.UploadsTable(attempts, func(i int) string { return rows[i].Answers })
		if err := export.WriteTable(*out, tb, *force); err != nil {
			return fail(e, name, *asJSON, exitUsage, err)
		}
	}
	if *asJSON {
		return emitJSON(e, name, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no uploads recorded for this connection")
	}
	for _, r := range rows {
		status := string(r.Outcome)
		if r.HTTPStatus != 0 {
			status += fmt.Sprintf(" (HTTP %d)", r.HTTPStatus)
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s  upload %s  %s\n", r.Time.UTC().Format("2006-01-02 15:04:05Z"), termsafe.String(r.Key), status,
			orNone(termsafe.String(r.UploadID)), termsafe.String(r.File))
		if r.ResendOf != "" {
			fmt.Fprintf(e.stdout, "    %s\n", r.ResendOf)
		}
		if r.Answers != "" {
			fmt.Fprintf(e.stdout, "    %s\n", r.Answers)
		}
		if len(r.FixedBy) > 0 {
			fmt.Fprintf(e.stdout, "    fixed by upload %s\n", termsafe.String(strings.Join(r.FixedBy, ", ")))
		}
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "b2bx uploads: wrote %s\n", termsafe.String(*out))
	}
	return exitOK
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// uploadsLinked is the answers of conn's uploads: from the team's index
// when [store] url is set and answers (a CONTRL a colleague fetched links
// to this machine's upload), else from this machine's (the one stderr
// line says why the team's is not used).
func uploadsLinked(ctx context.Context, e *env, name string, store *spool.Store, conn string) (*orders.Linked, error) {
	_, team, closeTeam, err := openTeamIndex(ctx, e, name)
	if err != nil {
		return nil, err
	}
	defer closeTeam()
	if team != nil {
		l, err := team.Linked(ctx, store, conn)
		if err == nil {
			return l, nil
		}
		fmt.Fprintf(e.stderr, "b2bx %s: team store not used (%s): this machine's index answers\n", name, termsafe.String(err.Error()))
	}
	return track.LoadLinked(ctx, session.Env{Getenv: e.getenv}, store, conn)
}
