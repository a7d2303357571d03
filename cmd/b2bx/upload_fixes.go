package main

import (
	"context"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/track"
)

// guardResend applies --fixes and the rule "fix and send with a new
// idempotency key" (orders.Guard) before any key is reserved: bytes
// identical to a rejected upload are refused unless --force.
func (u *uploadCmd) guardResend(ctx context.Context, store *spool.Store, connectionID string) int {
	var fixes *spool.UploadRecord
	if u.f.fixes != "" {
		// this machine's history and, with a team store, the team's: Bob
		// fixes the upload Alice sent
		hist, err := store.KeyHistory(connectionID)
		if err != nil {
			return fail(u.e, "upload", u.f.asJSON, exitStorage, fmt.Errorf("reading the upload history failed, nothing was sent: %w", err))
		}
		rec, err := orders.FindUpload(hist, u.f.fixes)
		if err != nil {
			return fail(u.e, "upload", u.f.asJSON, exitUsage, fmt.Errorf("--fixes: %w", err))
		}
		fixes = &rec
		u.plan.Fixes = orders.FixesRef(rec)
		u.resendOf = orders.ResendText(hist, spool.UploadRecord{Fixes: u.plan.Fixes})
	}
	// the guard asks about the uploads of these bytes and the one fixed:
	// their conversations only, however many the connection has
	sel := orders.Selection{SHAs: []string{u.plan.Preflight.SHA256}}
	if fixes != nil {
		sel.Keys, sel.SHAs = []string{fixes.Key}, append(sel.SHAs, fixes.SHA256)
	}
	load := track.SelectLoader(session.Env{Getenv: u.e.getenv})
	if u.linker != nil {
		load = u.linker.SelectLoader() // the index the pre-flight opened
	}
	l, err := load(ctx, store, connectionID, sel)
	if err != nil {
		return fail(u.e, "upload", u.f.asJSON, exitStorage, fmt.Errorf("reading the partner's answers failed, nothing was sent: %w", err))
	}
	if fixes != nil {
		if n := orders.ControlRefNote(*fixes, u.plan.Preflight); n != "" {
			fmt.Fprintf(u.e.stderr, "b2bx upload: note: %s\n", n)
		}
	}
	if err := orders.Guard(l, u.plan.Preflight.SHA256, fixes, false); err != nil {
		if !u.f.force {
			return fail(u.e, "upload", u.f.asJSON, exitUsage, err)
		}
		fmt.Fprintln(u.e.stderr, "b2bx upload: --force: sending bytes identical to an upload the partner rejected")
	}
	return exitOK
}
