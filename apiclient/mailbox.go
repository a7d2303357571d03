package apiclient

import (
	"context"
	"errors"
	"iter"
	"time"
)

// MaxListLimit is the largest page size the mailbox accepts.
const MaxListLimit = 100

// Entry is one due delivery in the mailbox. All strings come from the
// server and are untrusted: sanitise before display.
type Entry struct {
	DeliveryAttemptID string    `json:"deliveryAttemptId"`
	InterchangeID     string    `json:"interchangeId"`
	MessageType       string    `json:"messageType"`
	PayloadSize       int64     `json:"payloadSize"`
	PayloadSHA256     string    `json:"payloadSha256"`
	Status            string    `json:"status"`
	CreatedAt         time.Time `json:"createdAt"`
}

// Expect gives the listing's size and hash for Download's listing checks.
func (e Entry) Expect() Expect { return Expect{Size: e.PayloadSize, SHA256: e.PayloadSHA256} }

// Page is one mailbox page.
type Page struct {
	Entries       []Entry
	HasMore       bool
	NextCursor    string // opaque; pass back unchanged
	CorrelationID string
}

// ListMailbox reads one page. limit 0 lets the server choose (50);
// otherwise it must be 1..100. cursor "" starts at the beginning.
func (c *Client) ListMailbox(ctx context.Context, limit int, cursor string) (*Page, error) {
	return nil, errors.New("not implemented")
}

// Pages iterates over all pages, following the cursor. It stops after the
// first error, which it yields with a nil page.
func (c *Client) Pages(ctx context.Context, limit int) iter.Seq2[*Page, error] {
	return func(yield func(*Page, error) bool) {}
}
