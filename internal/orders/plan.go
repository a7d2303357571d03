package orders

import (
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/answers"
)

// Errors of the plan steps. Each says that nothing was sent.
var (
	// ErrBlocked: the pre-flight found a blocking problem.
	ErrBlocked = errors.New("the pre-flight blocks this upload; nothing was sent")
	// ErrChoiceNeeded: these bytes were already accepted and the operator
	// has not chosen replay or new.
	ErrChoiceNeeded = errors.New("these bytes were already accepted: choose replay or new upload first; nothing was sent")
	// ErrAborted: the operator chose to abort.
	ErrAborted = errors.New("aborted; nothing was sent")
	// ErrHistoryChanged: another upload of the same order was recorded
	// since the plan was made, so its key number may be taken.
	ErrHistoryChanged = errors.New("the upload history changed since the key was chosen (another upload of this order?); nothing was sent: plan the upload again")
)

// Choice answers "these bytes were already accepted: what now?".
type Choice int

// The operator's choices for bytes that were already accepted.
const (
	ChoiceAbort  Choice = iota // send nothing
	ChoiceReplay               // send again under the accepted key: the server answers 200 replay, no new order
	ChoiceNew                  // a new upload under the next key number: the partner gets the order again
)

// MaxKeyLen is the longest Idempotency-Key the contract allows.
const MaxKeyLen = apiclient.MaxKeyLen

// ValidateKey checks an Idempotency-Key an operator typed: 1 to 200
// characters from A-Z a-z 0-9 . _ : -. The error says which character
// or length is wrong without repeating the key.
func ValidateKey(key string) error { return apiclient.ValidateIdempotencyKey(key) }

// BusinessID is the business part of a generated key (CONTRACT.md): the
// BGM document number of the one ORDERS message, or the interchange
// control reference when there are several.
func BusinessID(f *edi.OrdersFacts) string {
	if len(f.Messages) == 1 && f.Messages[0].DocNumber != "" {
		return f.Messages[0].DocNumber
	}
	return f.ControlRef
}

// Plan is one upload about to happen: the pre-flight, the key and the
// decision behind it. Make it with NewPlan or Prepare; it is not safe for
// concurrent use.
type Plan struct {
	Preflight    *Preflight
	ConnectionID string
	// Decision is the key decision from the history; Kind NeedChoice
	// until Choose. Previous is the latest attempt of the same bytes.
	Decision spool.KeyDecision
	// Key is the Idempotency-Key Send uses ("" while a choice is needed
	// or when blocked); N its number (0: a key the operator set).
	Key string
	N   int
	// ReplayKey and NewKey are the two options when the bytes were
	// already accepted (see Choose).
	ReplayKey, NewKey string
	// Fixes names the upload this one fixes (its uploadId or key, see
	// resend.FixesRef); it is recorded in the history. "" for none.
	Fixes string

	store     *spool.Store
	history   []spool.UploadRecord
	generated string // the generated key behind an operator key
	genN      int
	reserved  bool
}

// Prepare inspects the file and plans its key for connectionID from the
// store's upload history. A blocked pre-flight gives a plan without a
// key (check p.Preflight.Blocked()); the error is for a file that cannot
// be read or a history that cannot be.
func Prepare(ctx context.Context, store *spool.Store, connectionID, path string) (*Plan, error) {
	pf, err := Inspect(ctx, path)
	if err != nil {
		return nil, err
	}
	return NewPlan(store, connectionID, pf)
}

// NewPlan chooses the key for the pre-flighted payload from the upload
// history (read only: nothing is recorded until Send or Reserve).
func NewPlan(store *spool.Store, connectionID string, pf *Preflight) (*Plan, error) {
	p := &Plan{Preflight: pf, ConnectionID: connectionID, store: store}
	if pf.Blocked() {
		return p, nil
	}
	req := p.request(spool.ChoiceAsk)
	// the lines of this sender and business id, with the team's uploads
	// when a team store is set
	hist, err := store.KeyHistoryFor(connectionID, req.SenderID, req.BusinessID)
	if err != nil {
		return nil, fmt.Errorf("reading the upload history failed, nothing was sent: %w", err)
	}
	p.history = hist
	return p, p.decide(spool.ChoiceAsk)
}

// request is the history question for this payload.
func (p *Plan) request(c spool.Choice) spool.KeyRequest {
	f := p.Preflight.Facts
	return spool.KeyRequest{SenderID: f.SenderID, BusinessID: BusinessID(f), SHA256: p.Preflight.SHA256, Choice: c}
}

// keyFor builds the generated key with number n.
func (p *Plan) keyFor(n int) (string, error) {
	f := p.Preflight.Facts
	return apiclient.IdempotencyKey(f.SenderID, BusinessID(f), n)
}

// decide applies Decide to the history the plan read.
func (p *Plan) decide(c spool.Choice) error {
	d := spool.Decide(p.history, p.request(c))
	p.Decision, p.Key, p.N, p.ReplayKey, p.NewKey = d, "", 0, "", ""
	var err error
	if d.Kind == spool.NeedChoice || d.Kind == spool.Replay || d.Kind == spool.NewUpload {
		if p.ReplayKey, err = p.keyFor(d.ReplayN); err != nil {
			return err
		}
		if p.NewKey, err = p.keyFor(d.NewN); err != nil {
			return err
		}
	}
	if d.Kind == spool.NeedChoice {
		return nil
	}
	if p.Key, err = p.keyFor(d.N); err != nil {
		return err
	}
	p.N, p.generated, p.genN = d.N, p.Key, d.N
	return nil
}

// NeedsChoice reports whether these bytes were already accepted and the
// operator must choose (Choose) before the key is known.
func (p *Plan) NeedsChoice() bool { return p.Decision.Kind == spool.NeedChoice }

// CanChoose reports whether the history asks for a choice at all (also
// after one was made, to change it).
func (p *Plan) CanChoose() bool {
	switch p.Decision.Kind {
	case spool.NeedChoice, spool.Replay, spool.NewUpload:
		return true
	}
	return false
}

// Choose answers the choice for already accepted bytes: replay keeps the
// accepted key, new takes the next number, abort returns ErrAborted.
func (p *Plan) Choose(c Choice) error {
	if !p.CanChoose() {
		return errors.New("no choice is needed: these bytes were not accepted before")
	}
	switch c {
	case ChoiceReplay:
		return p.decide(spool.ChoiceReplay)
	case ChoiceNew:
		return p.decide(spool.ChoiceNew)
	}
	return ErrAborted
}

// SetKey makes key, which the operator typed, the upload's key (N 0, like
// `b2bx upload --key`). The generated key, or "", restores the generated
// one. An invalid key is refused and the plan keeps its key.
func (p *Plan) SetKey(key string) error {
	if p.Preflight.Blocked() {
		return ErrBlocked
	}
	if key == "" || (key == p.generated && p.generated != "") {
		if p.generated == "" {
			return ErrChoiceNeeded
		}
		p.Key, p.N = p.generated, p.genN
		return nil
	}
	if err := ValidateKey(key); err != nil {
		return err
	}
	p.Key, p.N = key, 0
	return nil
}

// OperatorKey reports whether the key is one the operator set.
func (p *Plan) OperatorKey() bool { return p.Key != "" && p.N == 0 }

// DecisionName is the stable name of how the key was chosen ("first-upload",
// "retry", "replay", ..., "operator-key").
func (p *Plan) DecisionName() string {
	if p.OperatorKey() {
		return "operator-key"
	}
	return p.Decision.Kind.String()
}

// Explain says in one line why the key is what it is. It may quote
// history values: sanitise it for display.
func (p *Plan) Explain() string {
	if p.OperatorKey() {
		return "a key you chose; the key numbering of generated keys is not used"
	}
	return p.Decision.Explain()
}

// record is the history line for this plan, without outcome.
func (p *Plan) record() spool.UploadRecord {
	pf := p.Preflight
	r := spool.UploadRecord{ConnectionID: p.ConnectionID, File: pf.Path, Size: pf.Size, SHA256: pf.SHA256,
		Key: p.Key, N: p.N, Outcome: spool.OutcomePending, Fixes: p.Fixes}
	if pf.Path == "" {
		r.File = pf.Name
	}
	if f := pf.Facts; f != nil {
		r.SenderID, r.BusinessID = f.SenderID, BusinessID(f)
		r.RecipientID, r.ControlRef = f.RecipientID, f.ControlRef
		for _, m := range f.Messages {
			r.DocNumbers = append(r.DocNumbers, m.DocNumber)
		}
		if f.Doc != nil {
			r.BuyerID, r.SupplierID = answers.OrdersParties(f.Doc)
		}
	}
	return r
}

// Reserve records the plan's key as pending in the history before
// anything is sent, under the connection's lock. A generated key is
// checked against the history as it is now: if another process took its
// number meanwhile, it fails with ErrHistoryChanged and nothing is
// recorded. Send reserves by itself; call Reserve first to show the key
// only once it is recorded (the CLI does).
func (p *Plan) Reserve() error {
	switch {
	case p.Preflight.Blocked():
		return ErrBlocked
	case p.Key == "":
		return ErrChoiceNeeded
	case p.reserved:
		return nil
	}
	rec := p.record()
	if p.OperatorKey() {
		if err := p.store.AppendUpload(rec); err != nil {
			return err
		}
		p.reserved = true
		return nil
	}
	choice := spool.ChoiceAsk
	switch p.Decision.Kind {
	case spool.Replay:
		choice = spool.ChoiceReplay
	case spool.NewUpload:
		choice = spool.ChoiceNew
	}
	_, got, err := p.store.ReserveUpload(p.request(choice), rec, func(n int) (string, error) {
		if n != p.N {
			return "", ErrHistoryChanged
		}
		return p.Key, nil
	})
	switch {
	case err != nil:
		return err
	case got == nil:
		return ErrHistoryChanged
	}
	p.reserved = true
	return nil
}
