package orders

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ErrPlanChanged: the history moved since the preview (another upload
// of the same order ran), so the step would get another key than the
// one shown; nothing was sent.
var ErrPlanChanged = errors.New("the key differs from the preview; nothing was sent: preview again")

// SendStep sends one step of an UploadPlan, as planned: the kept bytes
// of its record, checked again (pre-flight, same SHA-256), under the key
// the preview showed (the replay/new choice the step names, or the
// operator's own key), reserved in the history before any byte leaves.
// A refused step, bytes that changed or a key that is no longer the
// previewed one send nothing and return an error.
func SendStep(ctx context.Context, store *spool.Store, c *apiclient.Client, connectionID string, st UploadStep) (*Outcome, error) {
	if st.Key == "" {
		return nil, fmt.Errorf("refused: %s", st.Why)
	}
	path, err := SentFileContext(ctx, store, st.Record)
	if err != nil {
		return nil, err
	}
	pf, err := Inspect(ctx, path)
	if err != nil {
		return nil, err
	}
	if pf.Blocked() {
		return nil, pf.Problem
	}
	if !strings.EqualFold(pf.SHA256, st.Record.SHA256) {
		return nil, fmt.Errorf("the kept bytes of %s changed since they were sent; nothing was sent", termsafe.String(st.Record.BusinessID))
	}
	p, err := NewPlan(store, connectionID, pf)
	if err != nil {
		return nil, err
	}
	if p.NeedsChoice() {
		choice := ChoiceNew
		if st.Action == "replay" {
			choice = ChoiceReplay
		}
		if err := p.Choose(choice); err != nil {
			return nil, err
		}
	}
	if p.Key != st.Key {
		// A replay goes under the marked upload's own key (the plan's
		// "same key"), which may be older than the latest key these
		// bytes were accepted under; anything else must match the
		// preview's number.
		if st.N != 0 && st.Action != "replay" {
			return nil, fmt.Errorf("%w (key %s, previewed %s)", ErrPlanChanged, termsafe.String(p.Key), termsafe.String(st.Key))
		}
		if err := p.SetKey(st.Key); err != nil {
			return nil, err
		}
	}
	if err := p.Reserve(); err != nil {
		return nil, err
	}
	return Send(ctx, c, p)
}
