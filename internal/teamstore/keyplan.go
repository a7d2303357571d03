package teamstore

import (
	"context"

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
	shareKeyPlans(ctx, store, func() *Store { return s }, nil)
	return s, ""
}

// shareKeyPlans is the one way key plans read the team's uploads, for
// `b2bx upload` (ForKeyPlans) and the app (Faces.AttachKeyPlans): store's
// key decisions count the upload history of the Store team returns (nil:
// not open, this machine's only), read under the team's key-plan lock of
// the connection (keylock.go), which the caller releases once the key it
// reserved is in the team store; locked (nil: nothing) hears of each
// read under the lock.
func shareKeyPlans(ctx context.Context, store *spool.Store, team func() *Store, locked func(s *Store, conn string)) {
	store.SetSharedUploads(func(conn string) ([]spool.UploadRecord, error) {
		s := team()
		if s == nil {
			return nil, nil
		}
		if err := s.lockKeys(context.WithoutCancel(ctx), conn); err != nil {
			return nil, err
		}
		if locked != nil {
			locked(s, conn)
		}
		return s.Uploads(context.WithoutCancel(ctx), conn)
	})
}

// LinkedFor is the team's link input for the uploads sel selects: the
// uploads anyone on the team pushed with those bytes or keys, and the
// answers anyone fetched in their conversations, built by the constructor
// this machine's upload guard uses (track.Index.LinkedFor, over the team's
// index). orders.Guard on it is the one reject rule for the team.
func (s *Store) LinkedFor(ctx context.Context, store *spool.Store, conn string, sel orders.Selection) (*orders.Linked, error) {
	x, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	l, err := x.LinkedFor(ctx, store, conn, &sel)
	if err != nil {
		return nil, s.wrap(err)
	}
	return l, nil
}
