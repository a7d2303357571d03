package teamstore

import (
	"context"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/orders"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ForKeyPlans opens the configured team store and makes store's key plans
// count the team's uploads (spool.Store.SetSharedUploads): Bob's next key
// after Alice's :1 is :2. With none configured it returns nil and "";
// when the store cannot be used, nil and the one line to say (key plans
// then count this machine's uploads only, and a key a colleague used is
// answered 409 by the platform, which the plan steps past). The first
// read takes the team's key-plan lock of the connection (keylock.go):
// the caller pushes the key it reserved, then calls ReleaseKeys (or
// Close), so a colleague planning the same order at once gets the next
// key. The caller closes the store.
func ForKeyPlans(ctx context.Context, getenv func(string) string, secrets func() (credentials.SecretStore, error), store *spool.Store) (*Store, string) {
	st, err := Settings(getenv)
	if err != nil || !st.Configured() {
		return nil, ""
	}
	var ks credentials.SecretStore
	if secrets != nil {
		ks, _ = secrets()
	}
	s, err := Open(ctx, ConfigFrom(st, ks))
	if err != nil {
		return nil, "team store not used (" + termsafe.String(err.Error()) + "): the key counts this machine's uploads only"
	}
	store.SetSharedUploads(func(conn string) ([]spool.UploadRecord, error) {
		if err := s.lockKeys(context.WithoutCancel(ctx), conn); err != nil {
			return nil, err
		}
		return s.Uploads(context.WithoutCancel(ctx), conn)
	})
	return s, ""
}

// SameAsRejected refuses bytes (by SHA-256) identical to an upload anyone
// on the team sent on conn that a partner's answer rejected, as
// orders.Guard refuses this machine's: a *orders.SameAsRejectedError, nil
// when none.
func (s *Store) SameAsRejected(ctx context.Context, conn, sha string) error {
	recs, err := s.Uploads(ctx, conn)
	if err != nil {
		return err
	}
	same := map[string]spool.UploadRecord{}
	for _, r := range spool.Attempts(recs) {
		if strings.EqualFold(r.SHA256, sha) && r.Outcome == spool.OutcomeAccepted {
			same[r.Key] = r
		}
	}
	if len(same) == 0 {
		return nil
	}
	x, err := s.Index(ctx)
	if err != nil {
		return err
	}
	defer x.Close()
	states, err := x.Overdue(ctx, time.Time{}, conn, nil)
	if err != nil {
		return s.wrap(err)
	}
	for _, st := range states {
		if r, ok := same[st.Key]; ok && st.IsNeedsAction() {
			return &orders.SameAsRejectedError{Rejection: orders.Rejection{Upload: r}}
		}
	}
	return nil
}
