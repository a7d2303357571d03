package apiclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nutrab2b/b2bx/internal/termsafe"
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
	// Skipped lists the entries of this page the client refused because
	// it could not act on them safely (see ListMailbox); Entries holds
	// the rest, in order.
	Skipped []SkippedEntry `json:"skipped,omitempty"`
	// Repeated (Pages only) are the deliveryAttemptIds (capped at 128
	// characters, raw and untrusted) of valid entries an earlier page of
	// the same walk already listed: the server repeated them, so they are
	// left out of Entries and counted once.
	Repeated []string `json:"repeated,omitempty"`
}

// MaxInfoField bounds interchangeId, messageType, status and createdAt:
// an EDIFACT message type is 6 letters, an interchange reference 14
// characters. An entry with a longer one is skipped (a 30 KB
// "messageType" is not one, and a listing of them filled gigabytes).
const MaxInfoField = 64

// SkippedEntry is a listed entry the client refused.
type SkippedEntry struct {
	// Index is the entry's position in the page's data array, from 0.
	Index int `json:"index"`
	// DeliveryAttemptID is the ID as the server sent it (capped at 128
	// characters), raw and untrusted: sanitise before display. "" when
	// it was missing or not a string.
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	// Reason says what made the entry unusable; it never quotes server
	// values except numbers.
	Reason string `json:"reason"`
}

// MaxPages is how many pages Pages reads at most: 1000 pages are 100,000
// entries at limit 100 (50,000 at the server's default 50), far more than
// a mailbox of due deliveries holds. A server whose cursor never ends is
// stopped there with ErrPaging instead of filling memory.
const MaxPages = 1000

// ErrPaging matches a listing whose paging breaks the contract: a cursor
// the server already returned, hasMore without a nextCursor, or more than
// MaxPages pages.
var ErrPaging = errors.New("mailbox paging does not end")

// ErrPageCap matches (besides ErrPaging) the error of a walk stopped at
// Config.MaxPages: the pages read before it are real entries (a backlog
// of 100,000 fills 1000 pages), to show with the error, not drop.
var ErrPageCap = errors.New("mailbox listing stopped at the page cap")

type pageCapError struct{ error }

func (e pageCapError) Unwrap() error        { return e.error }
func (e pageCapError) Is(target error) bool { return target == ErrPageCap }

// mailboxBody is the wire shape; pointers notice missing members. Entries
// are decoded one by one so one bad entry does not hide the others.
type mailboxBody struct {
	Data *[]json.RawMessage `json:"data"`
	Meta *struct {
		HasMore    *bool  `json:"hasMore"`
		NextCursor string `json:"nextCursor"`
	} `json:"meta"`
}

type wireEntry struct {
	DeliveryAttemptID *string `json:"deliveryAttemptId"`
	InterchangeID     string  `json:"interchangeId"`
	MessageType       string  `json:"messageType"`
	PayloadSize       *int64  `json:"payloadSize"`
	PayloadSHA256     *string `json:"payloadSha256"`
	Status            string  `json:"status"`
	CreatedAt         string  `json:"createdAt"`
}

// ListMailbox reads one page. limit 0 lets the server choose (50);
// otherwise it must be 1..100. cursor "" starts at the beginning; any other
// value is sent exactly as the previous page's NextCursor gave it.
//
// Entries the client cannot act on safely are left out of Entries and
// reported in Skipped, so one bad entry never blocks the valid ones:
//   - deliveryAttemptId missing, not a string, empty, "." or "..", longer
//     than 256 bytes, or listed twice on the page (it would address the
//     wrong resource or file); an entry with invalid UTF-8 anywhere (JSON
//     decoding would silently change the ID). Control characters are
//     kept: the ID is escaped in URLs and sanitised for display;
//   - payloadSize missing, not a whole number, negative, or above
//     MaxPayloadSize (the contract's limit: it cannot be downloaded
//     safely);
//   - payloadSha256 missing or not 64 hex digits (nothing to verify
//     against);
//   - an entry that is not a JSON object or has a member of the wrong type;
//   - interchangeId, messageType, status or createdAt longer than
//     MaxInfoField bytes.
//
// A page with more than MaxListLimit entries breaks the contract and is
// an error (ErrUnexpected): what the client holds stays bounded.
//
// interchangeId, messageType and status are informational and kept as
// sent (untrusted text); a missing or unreadable createdAt becomes the
// zero time. A page that is not the contract's envelope is an error
// (ErrUnexpected); hasMore without a nextCursor also matches ErrPaging.
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
		return nil, fmt.Errorf("%w: %w", ErrPaging, garbage(cl, resp, "mailbox says hasMore but gives no nextCursor"))
	}
	if n := len(*body.Data); n > MaxListLimit {
		return nil, garbage(cl, resp, "mailbox page holds %d entries, more than the limit of %d", n, MaxListLimit)
	}
	p := &Page{Entries: make([]Entry, 0, len(*body.Data)), HasMore: *body.Meta.HasMore, CorrelationID: cl.corr}
	if p.HasMore {
		p.NextCursor = body.Meta.NextCursor
	}
	seen := make(map[string]bool, len(*body.Data))
	for i, raw := range *body.Data {
		e, id, reason := decodeEntry(raw, seen)
		if reason != "" {
			p.Skipped = append(p.Skipped, SkippedEntry{Index: i, DeliveryAttemptID: capRunes(id, 128), Reason: reason})
			c.logSkipped(ctx, cl, i, id, reason)
			continue
		}
		p.Entries = append(p.Entries, e)
	}
	return p, nil
}

// decodeEntry turns one listed entry into an Entry, or says why it is
// unusable (reason != ""), with the raw ID when there was one.
func decodeEntry(raw json.RawMessage, seen map[string]bool) (e Entry, id, reason string) {
	var w wireEntry
	if err := json.Unmarshal(raw, &w); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var idOnly struct {
			ID string `json:"deliveryAttemptId"`
		}
		_ = json.Unmarshal(raw, &idOnly)
		return Entry{}, idOnly.ID, "not a JSON object with the contract's member types"
	}
	if w.DeliveryAttemptID != nil {
		id = *w.DeliveryAttemptID
	}
	switch {
	case !utf8.Valid(raw):
		// encoding/json would quietly turn the bad bytes into U+FFFD: the
		// ID would no longer be the server's.
		return Entry{}, id, "the entry contains invalid UTF-8"
	case w.DeliveryAttemptID == nil:
		return Entry{}, "", "deliveryAttemptId is missing"
	case checkID("deliveryAttemptId", id) != nil:
		return Entry{}, id, checkID("deliveryAttemptId", id).Error()
	case seen[id]:
		return Entry{}, id, "deliveryAttemptId is listed twice on this page"
	case w.PayloadSize == nil:
		return Entry{}, id, "payloadSize is missing"
	case *w.PayloadSize < 0:
		return Entry{}, id, fmt.Sprintf("payloadSize %d is negative", *w.PayloadSize)
	case *w.PayloadSize > MaxPayloadSize:
		return Entry{}, id, fmt.Sprintf("payloadSize %d exceeds the contract's 16 MiB limit (%d bytes)", *w.PayloadSize, MaxPayloadSize)
	case w.PayloadSHA256 == nil:
		return Entry{}, id, "payloadSha256 is missing"
	case !isSHA256Hex(*w.PayloadSHA256):
		return Entry{}, id, "payloadSha256 is not 64 hex digits"
	}
	for _, f := range []struct{ name, v string }{{"interchangeId", w.InterchangeID}, {"messageType", w.MessageType},
		{"status", w.Status}, {"createdAt", w.CreatedAt}} {
		if len(f.v) > MaxInfoField {
			return Entry{}, id, fmt.Sprintf("%s is %d bytes long, more than %d", f.name, len(f.v), MaxInfoField)
		}
	}
	seen[id] = true
	created, _ := time.Parse(time.RFC3339Nano, w.CreatedAt)
	return Entry{DeliveryAttemptID: id, InterchangeID: w.InterchangeID, MessageType: w.MessageType,
		PayloadSize: *w.PayloadSize, PayloadSHA256: *w.PayloadSHA256, Status: w.Status, CreatedAt: created}, id, ""
}

// Pages iterates over all pages, following the cursor unchanged. An
// entry an earlier page already listed (same deliveryAttemptId) is moved
// from Entries to the page's Repeated: each delivery is counted once. It
// stops after the first error, which it yields with a nil page. Paging that
// would not end is an error matching ErrPaging: a cursor the server
// already returned (also ErrUnexpected), hasMore without a nextCursor, or
// more than Config.MaxPages (default MaxPages) pages.
func (c *Client) Pages(ctx context.Context, limit int) iter.Seq2[*Page, error] {
	maxPages := c.cfg.MaxPages
	if maxPages <= 0 {
		maxPages = MaxPages
	}
	return func(yield func(*Page, error) bool) {
		cursor := ""
		seen := map[string]bool{}
		ids := map[[sha256.Size]byte]struct{}{} // IDs listed so far, hashed: bounded memory
		for n := 1; ; n++ {
			p, err := c.ListMailbox(ctx, limit, cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			p.Entries = slices.DeleteFunc(p.Entries, func(e Entry) bool {
				k := sha256.Sum256([]byte(e.DeliveryAttemptID))
				if _, dup := ids[k]; dup {
					p.Repeated = append(p.Repeated, capRunes(e.DeliveryAttemptID, 128))
					return true
				}
				ids[k] = struct{}{}
				return false
			})
			if !yield(p, nil) || !p.HasMore {
				return
			}
			switch {
			case seen[p.NextCursor]:
				yield(nil, fmt.Errorf("%w: %w", ErrPaging, &APIError{Op: "list mailbox", HTTPStatus: http.StatusOK, CorrelationID: p.CorrelationID,
					Message: fmt.Sprintf("page %d returned a cursor the server had already returned (the listing would loop forever)", n),
					Action:  "the server's answer breaks the API contract; tell the operator with the correlation ID"}))
				return
			case n >= maxPages:
				yield(nil, pageCapError{fmt.Errorf("list mailbox: %w: stopped after %d pages and the server still says hasMore [correlation %s]; "+
					"process or acknowledge entries to shrink the mailbox, or continue from the last page's cursor; if it never ends, tell the operator (the server breaks the API contract)",
					ErrPaging, n, p.CorrelationID)})
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

// RepeatTally counts the entries a walk of Pages found repeated (Page.Repeated)
// in bounded memory: how many, and the first few distinct IDs.
type RepeatTally struct {
	N     int      // repeated listings in all
	First []string // up to 5 distinct IDs, raw (sanitised by Note)
}

// Add counts one page's Repeated.
func (t *RepeatTally) Add(ids []string) {
	for _, id := range ids {
		t.N++
		if len(t.First) < 5 && !slices.Contains(t.First, id) {
			t.First = append(t.First, id)
		}
	}
}

// Note is the one text both faces show ("" when nothing was repeated).
func (t RepeatTally) Note() string {
	if t.N == 0 {
		return ""
	}
	names := make([]string, len(t.First))
	for i, id := range t.First {
		names[i] = termsafe.String(id)
	}
	more := ""
	if t.N > len(t.First) {
		more = ", …"
	}
	what := "entries"
	if t.N == 1 {
		what = "entry"
	}
	return fmt.Sprintf("the server listed %d %s again on a later page (%s%s); each delivery is counted once",
		t.N, what, strings.Join(names, ", "), more)
}
