package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ErrEmpty means the mailbox has no due entry.
var ErrEmpty = errors.New("the mailbox has no due entries")

// ErrNotListed means an ID was not in the mailbox listing.
var ErrNotListed = errors.New("not in the mailbox listing")

// Select returns the entry to process: the first due one when id is ""
// (see Next), else the listed entry id (see Find).
func (w *Worker) Select(ctx context.Context, id string) (apiclient.Entry, error) {
	if id == "" {
		return w.Next(ctx)
	}
	return w.Find(ctx, id)
}

// Next returns the first due entry the client can process, in the
// mailbox's order: the contract's "process in the order given". Entries
// listed above apiclient.MaxPayloadSize are passed over (Claim would
// refuse them), so one bad entry does not block the mailbox. It fails
// with ErrEmpty when nothing processable is due.
func (w *Worker) Next(ctx context.Context) (apiclient.Entry, error) {
	for page, err := range w.client.Pages(ctx, apiclient.MaxListLimit) {
		if err != nil {
			return apiclient.Entry{}, err
		}
		for _, e := range page.Entries {
			if e.PayloadSize > apiclient.MaxPayloadSize {
				w.log.LogAttrs(ctx, slog.LevelWarn, "worker skipped an entry above the payload limit",
					slog.String("connectionId", w.client.ConnectionID()),
					slog.String("deliveryAttemptId", e.DeliveryAttemptID),
					slog.Int64("payloadSize", e.PayloadSize))
				continue
			}
			return e, nil
		}
	}
	return apiclient.Entry{}, ErrEmpty
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
