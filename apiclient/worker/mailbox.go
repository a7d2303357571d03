package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ErrEmpty means the mailbox has no due entry the client can process.
var ErrEmpty = errors.New("the mailbox has no due entries")

// ErrNotListed means an ID was not in the mailbox listing.
var ErrNotListed = errors.New("not in the mailbox listing")

// ErrUnusable means the ID is listed, but the client refused the entry
// (apiclient.Page.Skipped): it cannot be checked or stored safely.
var ErrUnusable = errors.New("listed, but the client cannot process it safely")

// Choice is what a head search (Runner.Head) or Runner.Find found: the entry to process and the listed
// entries passed over on the pages read before it.
type Choice struct {
	Entry apiclient.Entry
	// Skipped are entries the client refused (apiclient.Page.Skipped: a
	// bad ID, size or hash, a size above apiclient.MaxPayloadSize), in
	// listing order. Their strings
	// are raw: sanitise before display.
	Skipped []apiclient.SkippedEntry
	// Relisted are entries acknowledged in this run that the server
	// still lists as due (Runner.Head passed over them; raw IDs).
	Relisted []string
	// Pages are the pages a head search read, in order; the last one
	// holds Entry (or is the mailbox's last page when nothing was due).
	Pages []PageRef
	// Page is the last page a head search read, nil before one arrived.
	Page *apiclient.Page
}

// Find pages through the mailbox until it meets id: fetch ID's entry.
// The listing's size and hash are what the download is checked against,
// so an ID typed by the operator must be found there first; an entry
// that is claimed, acknowledged or failed is not listed and fails with
// ErrNotListed, one the client refused with ErrUnusable. The Choice's
// Skipped (the refused entries listed before it) is filled on error too.
func (r *Runner) Find(ctx context.Context, id string) (Choice, error) {
	var c Choice
	if id == "" {
		return c, fmt.Errorf("delivery \"\": %w", ErrNotListed)
	}
	r.mu.Lock()
	limit := r.limit
	r.mu.Unlock()
	for page, err := range r.be.Pages(ctx, limit) {
		if err != nil {
			return c, err
		}
		for _, s := range page.Skipped {
			if s.DeliveryAttemptID == id {
				return c, fmt.Errorf("delivery %s: %w: %s; it is not claimed — tell the partner's operator, with the ID", termsafe.String(id), ErrUnusable, termsafe.String(s.Reason))
			}
		}
		c.Skipped = append(c.Skipped, page.Skipped...)
		for _, e := range page.Entries {
			if e.DeliveryAttemptID == id {
				c.Entry = e
				return c, nil
			}
		}
	}
	return c, fmt.Errorf("delivery %s: %w: it may be claimed right now (lease active), already acknowledged, or failed; run 'b2bx mailbox ls' to see what is due",
		termsafe.String(id), ErrNotListed)
}
