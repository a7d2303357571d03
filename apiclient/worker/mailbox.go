package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ErrEmpty means the mailbox has no due entry.
var ErrEmpty = errors.New("the mailbox has no due entries")

// ErrNotListed means an ID was not in the mailbox listing.
var ErrNotListed = errors.New("not in the mailbox listing")

// Next returns the first entry of the first mailbox page: the contract's
// "process in the order given". It fails with ErrEmpty when nothing is due.
func (w *Worker) Next(ctx context.Context) (apiclient.Entry, error) {
	page, err := w.client.ListMailbox(ctx, 1, "")
	if err != nil {
		return apiclient.Entry{}, err
	}
	if len(page.Entries) == 0 {
		return apiclient.Entry{}, ErrEmpty
	}
	return page.Entries[0], nil
}

// Find pages through the mailbox until it meets id. The listing's size and
// hash are what the download is checked against, so an ID typed by the
// operator must be found there first; an entry that is claimed,
// acknowledged or failed is not listed and fails with ErrNotListed.
func (w *Worker) Find(ctx context.Context, id string) (apiclient.Entry, error) {
	for page, err := range w.client.Pages(ctx, apiclient.MaxListLimit) {
		if err != nil {
			return apiclient.Entry{}, err
		}
		for _, e := range page.Entries {
			if e.DeliveryAttemptID == id {
				return e, nil
			}
		}
	}
	return apiclient.Entry{}, fmt.Errorf("delivery %s: %w: it may be claimed right now (lease active), already acknowledged, or failed; run 'b2bx mailbox ls' to see what is due",
		termsafe.String(id), ErrNotListed)
}
