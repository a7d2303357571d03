package credentials

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

// countingStore counts Get calls of an inner store.
type countingStore struct {
	SecretStore
	gets int
}

func (c *countingStore) Get(ctx context.Context, p, k string) (secret.Value, error) {
	c.gets++
	return c.SecretStore.Get(ctx, p, k)
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolveKeyringFirstThenEnv(t *testing.T) {
	ctx := context.Background()
	p := validProfile() // key-up for inbox, key-mb for mailbox
	for _, tc := range []struct {
		name      string
		stored    map[string]string // key ID → secret
		fail      error
		env       string
		inbox     Source
		mailbox   Source
		wantErr   []string
		storeKind error // StoreErr kind of the env-resolved key
	}{
		{name: "both in keyring", stored: map[string]string{"key-up": "s-up", "key-mb": "s-mb"}, inbox: SourceKeyring, mailbox: SourceKeyring},
		{name: "keyring wins over env", stored: map[string]string{"key-up": "s-up", "key-mb": "s-mb"}, env: "key-mb:" + canary, inbox: SourceKeyring, mailbox: SourceKeyring},
		{name: "env fills the missing key", stored: map[string]string{"key-up": "s-up"}, env: "key-mb:" + canary, inbox: SourceKeyring, mailbox: SourceEnv, storeKind: ErrNotFound},
		{name: "no keyring, env matches", fail: ErrNoService, env: "key-up:" + canary,
			wantErr: []string{`profile "acme-prod", mailbox key`, "no OS keyring", `$B2BX_API_KEY holds key "key-up", not "key-mb"`}},
		{name: "missing, no env", stored: map[string]string{"key-up": "s-up"},
			wantErr: []string{`profile "acme-prod", mailbox key`, "b2bx conn set-secret acme-prod --key-id key-mb", "B2BX_API_KEY=key-mb:<secret>"}},
		{name: "env malformed", env: canary, wantErr: []string{"$B2BX_API_KEY is set but unusable", "<key-id>:<secret>"}},
	} {
		m := NewMemoryStore()
		for k, v := range tc.stored {
			require.NoError(t, m.Set(ctx, p.Name, k, secret.New(v)))
		}
		m.FailWith(tc.fail)
		r, err := Resolve(ctx, m, p, envOf(map[string]string{EnvAPIKey: tc.env}))
		if tc.wantErr != nil {
			require.Error(t, err, tc.name)
			for _, w := range tc.wantErr {
				require.Contains(t, err.Error(), w, tc.name)
			}
			require.NotContains(t, err.Error(), canary, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.inbox, r.Inbox.Source, tc.name)
		require.Equal(t, tc.mailbox, r.Mailbox.Source, tc.name)
		require.Equal(t, "key-up", r.Inbox.Credential.KeyID)
		require.Equal(t, "key-mb", r.Mailbox.Credential.KeyID)
		if tc.mailbox == SourceEnv {
			require.Equal(t, canary, r.Mailbox.Credential.Secret.Reveal())
			require.ErrorIs(t, r.Mailbox.StoreErr, tc.storeKind)
		} else {
			require.Equal(t, "s-mb", r.Mailbox.Credential.Secret.Reveal())
			require.NoError(t, r.Mailbox.StoreErr)
		}
		require.NotContains(t, fmt.Sprintf("%v %+v %#v", r, r, r), canary, "a resolved profile prints without secrets")
	}
}

func TestResolveUnreachableKeyringFallsBackToEnv(t *testing.T) {
	p := validProfile()
	p.MailboxKeyID = p.InboxKeyID
	m := NewMemoryStore()
	m.FailWith(ErrNoService)
	c := &countingStore{SecretStore: m}
	r, err := Resolve(context.Background(), c, p, envOf(map[string]string{EnvAPIKey: "key-up:" + canary}))
	require.NoError(t, err)
	require.Equal(t, 1, c.gets, "one key serving both directions is looked up once")
	require.Equal(t, SourceEnv, r.Inbox.Source)
	require.Equal(t, SourceEnv, r.Mailbox.Source)
	require.ErrorIs(t, r.Inbox.StoreErr, ErrNoService, "the fallback remembers why")
}

func TestInspectNeverCarriesSecrets(t *testing.T) {
	ctx := context.Background()
	p := validProfile()
	m := NewMemoryStore()
	require.NoError(t, m.Set(ctx, p.Name, "key-up", secret.New(canary)))
	keys := Inspect(ctx, m, p, envOf(nil))
	require.Len(t, keys, 2)
	require.Equal(t, SourceKeyring, keys[0].Source)
	require.True(t, keys[0].Credential.Secret.IsZero())
	require.Equal(t, Source(""), keys[1].Source)
	require.ErrorIs(t, keys[1].StoreErr, ErrNotFound)
}

func TestStickyStopsCallingADeadKeyring(t *testing.T) {
	ctx := context.Background()
	fb := &fakeBackend{err: ErrNoService}
	s := Sticky(NewKeyringStore(WithBackend(fb)))
	_, err := s.Get(ctx, "a", "k1")
	require.ErrorIs(t, err, ErrKeyring)
	require.Equal(t, 1, fb.count(), "an unclassified error is not sticky")

	fb2 := &fakeBackend{err: errDBusServiceUnknown()}
	s = Sticky(NewKeyringStore(WithBackend(fb2)))
	_, err = s.Get(ctx, "a", "k1")
	require.ErrorIs(t, err, ErrNoService)
	_, err = s.Get(ctx, "b", "k2")
	require.ErrorIs(t, err, ErrNoService)
	require.Contains(t, err.Error(), "b/k2", "the repeated error names the key asked for")
	require.Contains(t, err.Error(), "B2BX_API_KEY=k2:<secret>", "and its hint too")
	require.NotContains(t, err.Error(), "k1")
	require.ErrorIs(t, s.Set(ctx, "b", "k2", secret.New("x")), ErrNoService)
	require.ErrorIs(t, s.Delete(ctx, "b", "k2"), ErrNoService)
	require.Equal(t, 1, fb2.count())

	m := NewMemoryStore()
	s = Sticky(m)
	_, err = s.Get(ctx, "a", "k")
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, s.Set(ctx, "a", "k", secret.New("v")), "not found is not sticky")
}
