package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "mailbox ls", summary: "list the due deliveries of a connection's mailbox", run: runMailboxLs})
}

// mailboxJSON is the --json output of mailbox ls.
type mailboxJSON struct {
	Entries    []apiclient.Entry `json:"entries"`
	HasMore    bool              `json:"hasMore"`
	NextCursor string            `json:"nextCursor,omitempty"`
	// Skipped are listed entries the client refused (bad ID, size or
	// hash; above 16 MiB): not processable, reported, never dropped silently.
	Skipped []apiclient.SkippedEntry `json:"skipped,omitempty"`
	// Repeated (--all) counts entries the server listed again on a later
	// page: each is in entries once.
	Repeated int `json:"repeated,omitempty"`
}

func runMailboxLs(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "mailbox ls", "")
	cf := addConnFlags(fs)
	limit := fs.Int("limit", 0, "entries per page, 1-100 (default: the server's, 50)")
	all := fs.Bool("all", false, "follow the cursor and list every page")
	cursor := fs.String("cursor", "", "continue from a previous page's nextCursor (see --json)")
	asJSON := fs.Bool("json", false, "print JSON: {entries, hasMore, nextCursor, skipped}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return fail(e, "mailbox ls", *asJSON, exitUsage, fmt.Errorf("unexpected argument %q", termsafe.String(pos[0])))
	}
	if *limit < 0 || *limit > apiclient.MaxListLimit {
		return fail(e, "mailbox ls", *asJSON, exitUsage, fmt.Errorf("--limit must be between 1 and %d", apiclient.MaxListLimit))
	}
	if *all && *cursor != "" {
		return fail(e, "mailbox ls", *asJSON, exitUsage, errors.New("--all starts at the beginning; drop --cursor"))
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	t, err := cf.resolve(ctx, e)
	if err != nil {
		return fail(e, "mailbox ls", *asJSON, exitUsage, err)
	}
	ac, err := newAPIConn(e, t, "mailbox ls")
	if err != nil {
		return fail(e, "mailbox ls", *asJSON, exitUsage, err)
	}
	out := mailboxJSON{Entries: []apiclient.Entry{}}
	if *all {
		var rep apiclient.RepeatTally
		for page, err := range ac.client.Pages(ctx, *limit) {
			if err != nil {
				return fail(e, "mailbox ls", *asJSON, exitAPI, err)
			}
			out.Entries = append(out.Entries, page.Entries...)
			out.Skipped = append(out.Skipped, page.Skipped...)
			rep.Add(page.Repeated)
		}
		out.Repeated = rep.N
		if note := rep.Note(); note != "" {
			fmt.Fprintf(e.stderr, "b2bx mailbox ls: %s\n", note)
		}
	} else {
		page, err := ac.client.ListMailbox(ctx, *limit, *cursor)
		if err != nil {
			return fail(e, "mailbox ls", *asJSON, exitAPI, err)
		}
		out.Entries = append(out.Entries, page.Entries...)
		out.Skipped = page.Skipped
		out.HasMore, out.NextCursor = page.HasMore, page.NextCursor
	}
	reportSkipped(e, "mailbox ls", out.Skipped)
	if *asJSON {
		return emitJSON(e, "mailbox ls", out)
	}
	printEntries(e, out)
	return exitOK
}

// printEntries writes the human table; every server string is sanitised.
func printEntries(e *env, out mailboxJSON) {
	if len(out.Entries) == 0 {
		fmt.Fprintln(e.stdout, "no due deliveries")
		return
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tSIZE\tSHA256\tSTATUS\tCREATED")
	for _, en := range out.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n",
			termsafe.String(en.DeliveryAttemptID), termsafe.String(en.MessageType), human.Bytes(en.PayloadSize),
			termsafe.String(shortHash(en.PayloadSHA256)), termsafe.String(en.Status), en.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	fmt.Fprintf(e.stdout, "%d deliveries", len(out.Entries))
	if out.HasMore {
		fmt.Fprint(e.stdout, "; more are due: use --all, or --cursor with the nextCursor from --json")
	}
	fmt.Fprintln(e.stdout)
}
