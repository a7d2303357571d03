// Package fix is the app's "fix and resend a rejected ORDERS" (issue 15
// §1): the ORDERS of a rejected upload in the segment viewer with the
// partner's CONTRL/APERAK errors pinned on it (OpenPinned), and the E
// flow (New): a work copy, the operator's $VISUAL/$EDITOR with the app
// suspended, then the pre-flight, the segment diff against the rejected
// bytes and the key plan, and the send on y with a new key and the link
// to the upload it fixes. The rules are resend's, the same code `b2bx
// upload --fixes` runs; bytes identical to a rejected upload are refused
// with the reason (the app has no --force).
//
// Any screen that shows uploads (the uploads screen H, a timeline) calls
// OpenPinned in a tea.Cmd and pushes New; both need only the store, the
// linked answers and the upload record.
package fix

import (
	"context"
	"errors"
	"fmt"
	"github.com/nutrab2b/b2bx/edi/pin"
	"os"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	up "github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

// Rejection is the answer that rejects upload rec among l's linked
// answers, if one does.
func Rejection(l *up.Linked, rec spool.UploadRecord) (up.Rejection, bool) {
	if l == nil {
		return up.Rejection{}, false
	}
	for _, r := range up.Rejections(l) {
		if same(r.Upload, rec) {
			return r, true
		}
	}
	return up.Rejection{}, false
}

// same reports whether two history records are one upload attempt.
func same(a, b spool.UploadRecord) bool {
	return a.Key == b.Key && a.Time.Equal(b.Time) && a.UploadID == b.UploadID
}

// Source is what the fix flow reads for one rejected upload: the bytes
// that were sent and the pins of the rejecting answer on them.
type Source struct {
	Rejection up.Rejection
	SentPath  string
	Sent      []byte
	Pins      []pin.Pin
}

// Load reads the sent bytes of rec and pins the rejecting answer's
// errors on them (IO: run it in a tea.Cmd).
func Load(ctx context.Context, store *spool.Store, l *up.Linked, rec spool.UploadRecord) (*Source, error) {
	rej, ok := Rejection(l, rec)
	if !ok {
		return nil, errors.New("no stored answer rejects this upload (a CONTRL with UCI 0083 = 4, UCM/UCS/UCD errors, or an APERAK error): v views it as sent")
	}
	path, err := up.SentFileContext(ctx, store, rec)
	if err != nil {
		return nil, err
	}
	sent, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the ORDERS as sent cannot be read: %w", err)
	}
	d, stored := l.Delivery(rej.Answer.ID)
	if !stored {
		return nil, fmt.Errorf("the rejecting answer (delivery %s) is no longer in the local store", rej.Answer.ID)
	}
	answer, err := os.ReadFile(d.Stored.Path)
	if err != nil {
		return nil, fmt.Errorf("the rejecting answer cannot be read: %w", err)
	}
	orders, err := edi.ParseContext(ctx, sent, edi.Options{})
	if err != nil {
		return nil, fmt.Errorf("the ORDERS as sent cannot be parsed: %w", err)
	}
	adoc, err := edi.ParseContext(ctx, answer, edi.Options{})
	if err != nil {
		return nil, fmt.Errorf("the rejecting answer cannot be parsed: %w", err)
	}
	pins, err := pin.Pins(orders, adoc)
	if err != nil && !errors.Is(err, pin.ErrOtherInterchange) {
		return nil, err
	}
	return &Source{Rejection: rej, SentPath: path, Sent: sent, Pins: pins}, nil
}

// OpenPinned opens the viewer on the ORDERS of the rejected upload rec
// with the rejecting answer's errors pinned (IO: run it in a tea.Cmd),
// as the Opened for owner's stack answering req. conn is what the
// connection adds (viewer.Options.WithConnection: the contract findings
// for its directory and its partner rules' findings, pinned beside the
// answer's errors); its Title and Pins are replaced.
func OpenPinned(ctx context.Context, c *common.Common, owner common.TabID, req uint64, store *spool.Store, l *up.Linked, rec spool.UploadRecord, conn viewer.Options) common.Opened {
	src, err := Load(ctx, store, l, rec)
	if err != nil {
		return common.Opened{Tab: owner, Req: req, Err: fmt.Errorf("the pinned ORDERS cannot be shown: %w", err)}
	}
	title := "ORDERS sent with key " + rec.Key + " · rejected by " + src.Rejection.Answer.Type + " in delivery " + src.Rejection.Answer.ID
	conn.Title, conn.Pins = title, src.Pins
	return viewer.Opened(ctx, c, owner, req, src.SentPath, conn)
}

// OpenMsg asks the tab Tab to act on the rejected upload Upload: the
// viewer with the errors pinned, or (Edit) the E flow. Any screen on a
// tab's stack that shows uploads (H, a timeline) returns it; the tab
// owns the store, the connection and the linked answers.
type OpenMsg struct {
	Tab    common.TabID
	Upload spool.UploadRecord
	Edit   bool
}

// Owner implements common.Owned.
func (m OpenMsg) Owner() common.TabID { return m.Tab }
