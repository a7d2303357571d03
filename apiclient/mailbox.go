package apiclient

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
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
	Entries       []Entry `json:"entries"`
	HasMore       bool    `json:"hasMore"`
	NextCursor    string  `json:"nextCursor,omitempty"` // opaque; pass back unchanged
	CorrelationID string  `json:"correlationId"`
}

// mailboxBody is the wire shape; pointers notice missing members.
type mailboxBody struct {
	Data *[]wireEntry `json:"data"`
	Meta *struct {
		HasMore    *bool  `json:"hasMore"`
		NextCursor string `json:"nextCursor"`
	} `json:"meta"`
}

type wireEntry struct {
	DeliveryAttemptID string    `json:"deliveryAttemptId"`
	InterchangeID     string    `json:"interchangeId"`
	MessageType       string    `json:"messageType"`
	PayloadSize       *int64    `json:"payloadSize"`
	PayloadSHA256     string    `json:"payloadSha256"`
	Status            string    `json:"status"`
	CreatedAt         time.Time `json:"createdAt"`
}

// ListMailbox reads one page. limit 0 lets the server choose (50);
// otherwise it must be 1..100. cursor "" starts at the beginning; any other
// value is sent exactly as the previous page's NextCursor gave it.
func (c *Client) ListMailbox(ctx context.Context, limit int, cursor string) (*Page, error) {
	if limit < 0 || limit > MaxListLimit {
		return nil, fmt.Errorf("list mailbox: limit %d is outside 1..%d (0 = server default 50): %w", limit, MaxListLimit, ErrInvalidRequest)
	}
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	cl := &call{op: "list mailbox", scope: ScopeMailboxList, method: http.MethodGet,
		url: c.endpoint(q, "mailbox"), corr: correlationFor(ctx), mode: retryUnclear}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var body mailboxBody
	if err := c.decodeJSON(cl, resp, &body); err != nil {
		return nil, err
	}
	if body.Data == nil || body.Meta == nil || body.Meta.HasMore == nil {
		return nil, garbage(cl, resp, "mailbox answer lacks data, meta or meta.hasMore")
	}
	if *body.Meta.HasMore && body.Meta.NextCursor == "" {
		return nil, garbage(cl, resp, "mailbox says hasMore but gives no nextCursor")
	}
	p := &Page{Entries: make([]Entry, 0, len(*body.Data)), HasMore: *body.Meta.HasMore, CorrelationID: cl.corr}
	if p.HasMore {
		p.NextCursor = body.Meta.NextCursor
	}
	for i, w := range *body.Data {
		if err := w.check(); err != nil {
			return nil, garbage(cl, resp, "mailbox entry %d: %v", i, err)
		}
		p.Entries = append(p.Entries, Entry{w.DeliveryAttemptID, w.InterchangeID, w.MessageType,
			*w.PayloadSize, w.PayloadSHA256, w.Status, w.CreatedAt})
	}
	return p, nil
}

// check notices entries the client could not act on safely.
func (w *wireEntry) check() error {
	switch {
	case checkID("deliveryAttemptId", w.DeliveryAttemptID) != nil:
		return checkID("deliveryAttemptId", w.DeliveryAttemptID)
	case w.PayloadSize == nil:
		return fmt.Errorf("payloadSize is missing")
	case *w.PayloadSize < 0:
		return fmt.Errorf("payloadSize %d is negative", *w.PayloadSize)
	case !isSHA256Hex(w.PayloadSHA256):
		return fmt.Errorf("payloadSha256 is not 64 hex digits")
	}
	return nil
}

// Pages iterates over all pages, following the cursor unchanged. It stops
// after the first error, which it yields with a nil page, and refuses a
// server that hands out the same cursor twice (it would loop forever).
func (c *Client) Pages(ctx context.Context, limit int) iter.Seq2[*Page, error] {
	return func(yield func(*Page, error) bool) {
		cursor := ""
		seen := map[string]bool{}
		for {
			p, err := c.ListMailbox(ctx, limit, cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(p, nil) || !p.HasMore {
				return
			}
			if seen[p.NextCursor] {
				yield(nil, &APIError{Op: "list mailbox", HTTPStatus: http.StatusOK, CorrelationID: p.CorrelationID,
					Message: "the server returned a cursor it had already returned", Action: "the server's answer breaks the API contract; tell the operator with the correlation ID"})
				return
			}
			seen[p.NextCursor] = true
			cursor = p.NextCursor
		}
	}
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
