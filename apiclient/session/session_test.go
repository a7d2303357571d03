package session

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const (
	canaryIn  = "CANARY-SESSION-INBOX-7a1b"
	canaryMb  = "CANARY-SESSION-MAILBOX-8c2d"
	canaryEnv = "CANARY-SESSION-ENV-9e3f"
)

// testEnv is a profile file in a temp dir, an in-memory store and an
// environment map.
type testEnv struct {
	store *credentials.MemoryStore
	path  string
	vars  map[string]string
	warns []string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	te := &testEnv{store: credentials.NewMemoryStore(), path: filepath.Join(dir, "cfg", "profiles.toml")}
	te.vars = map[string]string{credentials.EnvConfig: te.path, "HOME": dir, "B2BX_DATA_DIR": filepath.Join(dir, "data")}
	return te
}

func (te *testEnv) env() Env {
	return Env{Getenv: func(k string) string { return te.vars[k] }, Store: te.store, Warn: func(m string) { te.warns = append(te.warns, m) }}
}

func (te *testEnv) file(t *testing.T) *credentials.File {
	t.Helper()
	f, err := LoadProfiles(te.env())
	require.NoError(t, err)
	return f
}

func twoKeys() credentials.Profile {
	return credentials.Profile{Name: "acme", URL: "https://api.example.com", ConnectionID: "conn-1", Partner: "ACME",
		InboxKeyID: "key-up", MailboxKeyID: "key-mb", StoreDir: "/srv/spool/acme"}
}

func twoSecrets() map[string]secret.Value {
	return map[string]secret.Value{"key-up": secret.New(canaryIn), "key-mb": secret.New(canaryMb)}
}

// noCanary fails when a canary secret is in s.
func noCanary(t *testing.T, s string) {
	t.Helper()
	for _, c := range []string{canaryIn, canaryMb, canaryEnv, "CANARY"} {
		require.NotContains(t, s, c, "a secret was echoed")
	}
}

func TestAddThenResolveProfile(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	require.NoError(t, AddProfile(ctx, te.file(t), twoKeys(), twoSecrets(), te.store))

	tg, err := ResolveProfile(ctx, te.env(), "acme")
	require.NoError(t, err)
	require.Equal(t, Target{Name: "acme", BaseURL: "https://api.example.com", ConnectionID: "conn-1", Partner: "ACME",
		Inbox: secret.Credential{KeyID: "key-up", Secret: secret.New(canaryIn)}, Mailbox: secret.Credential{KeyID: "key-mb", Secret: secret.New(canaryMb)},
		StoreDir: "/srv/spool/acme", Directory: "D.96A"}, tg) // a profile without directory: the default
	require.Equal(t, canaryIn, tg.Inbox.Secret.Reveal())
	require.Equal(t, canaryMb, tg.Mailbox.Secret.Reveal())

	_, err = ResolveProfile(ctx, te.env(), "nope")
	require.ErrorContains(t, err, "b2bx conn ls")
	err = AddProfile(ctx, te.file(t), twoKeys(), nil, te.store)
	require.ErrorIs(t, err, ErrProfileExists)
	var se *StageError
	require.ErrorAs(t, err, &se)
	require.Equal(t, StageValidate, se.Stage)
}

func TestResolveProfileFallsBackToEnv(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	p := twoKeys()
	p.MailboxKeyID = p.InboxKeyID
	require.NoError(t, AddProfile(ctx, te.file(t), p, nil, nil))
	_, err := ResolveProfile(ctx, te.env(), "acme")
	require.ErrorIs(t, err, credentials.ErrNotFound)

	te.vars[EnvAPIKey] = "key-up:" + canaryEnv
	tg, err := ResolveProfile(ctx, te.env(), "acme")
	require.NoError(t, err)
	require.Equal(t, canaryEnv, tg.Inbox.Secret.Reveal())
	require.Equal(t, tg.Inbox, tg.Mailbox)
}

func TestResolveURL(t *testing.T) {
	te := newTestEnv(t)
	te.vars[EnvAPIKey] = "key-1:" + canaryEnv
	for _, u := range []string{"https://api.example.com", "http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:9"} {
		tg, err := ResolveURL(te.env(), u, "conn-1")
		require.NoError(t, err, u)
		require.Equal(t, u, tg.BaseURL)
		require.Equal(t, "key-1", tg.Inbox.KeyID)
		require.Equal(t, tg.Inbox, tg.Mailbox)
	}
	for _, tc := range []struct{ url, conn, want string }{
		{"http://10.1.2.3:8080", "c", "uses plain http: use https"},
		{"http://api.example.com", "c", "uses plain http: use https"},
		{"http://127.0.0.1.example.com", "c", "uses plain http"},
		{"https://key1:" + canaryIn + "@api.example.com", "c", "must not contain a user name or password"},
		{"https://" + canaryIn + "@api.example.com", "c", "must not contain a user name or password"},
		{"http://key1:" + canaryIn + "@127.0.0.1:1", "c", "must not contain a user name or password"},
		{"https://key1:" + canaryIn + "@exa mple.com", "c", "(unparsable URL)"},
		{"ftp://key1:" + canaryIn + "@example.com", "c", "is not an http(s) URL"},
		{"https://api.example.com/?token=" + canaryIn, "c", "must not have a query"},
		{"", "c", "is empty"},
		{"https://api.example.com", "", "connection ID is empty"},
		{"https://api.example.com", "..", "is not a valid ID"},
	} {
		_, err := ResolveURL(te.env(), tc.url, tc.conn)
		require.ErrorContains(t, err, tc.want, tc.url)
		noCanary(t, err.Error())
	}

	delete(te.vars, EnvAPIKey)
	_, err := ResolveURL(te.env(), "https://api.example.com", "c")
	require.ErrorContains(t, err, "$B2BX_API_KEY is not set")
	te.vars[EnvAPIKey] = canaryEnv
	_, err = ResolveURL(te.env(), "https://api.example.com", "c")
	require.ErrorContains(t, err, "<key-id>:<secret>")
	noCanary(t, err.Error())
}

func TestOpenChecksTargetAndOpensSpool(t *testing.T) {
	te := newTestEnv(t)
	cred := secret.Credential{KeyID: "k", Secret: secret.New(canaryEnv)}
	getenv := func(k string) string { return te.vars[k] }

	_, err := Open(Target{BaseURL: "http://192.0.2.1", ConnectionID: "c", Inbox: cred, Mailbox: cred}, Options{Getenv: getenv})
	require.ErrorContains(t, err, "plain http", "a Target built by hand gets the same rules")
	_, err = Open(Target{BaseURL: "https://x.example", ConnectionID: "c"}, Options{Getenv: getenv})
	require.ErrorContains(t, err, "no API key")

	// Once closed, no request may go out: the transport fails the test.
	noNetwork := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("a request went out after Close: %s %s", r.Method, r.URL.Path)
		return nil, errors.New("no network in this test")
	})}
	c, err := Open(Target{BaseURL: "https://x.example", ConnectionID: "c", Inbox: cred, Mailbox: cred}, Options{Getenv: getenv, HTTPClient: noNetwork,
		Retry: apiclient.RetryPolicy{MaxAttempts: 1}})
	require.NoError(t, err)
	require.Equal(t, "c", c.Client.ConnectionID())
	require.Equal(t, te.vars["B2BX_DATA_DIR"], c.Spool.Root())
	require.NotNil(t, c.Log)
	c.Close()
	c.Close()
	_, err = c.Client.ListMailbox(context.Background(), 1, "")
	require.ErrorIs(t, err, apiclient.ErrClosed, "Close closes the client")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestStoreRootPrecedence(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"B2BX_DATA_DIR": filepath.Join(dir, "env"), "XDG_DATA_HOME": filepath.Join(dir, "xdg"), "HOME": filepath.Join(dir, "home")}
	getenv := func(k string) string { return vars[k] }
	root, err := StoreRoot(Target{StoreDir: filepath.Join(dir, "profile")}, getenv)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "profile"), root)
	root, err = StoreRoot(Target{}, getenv)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "env"), root)
	delete(vars, "B2BX_DATA_DIR")
	root, err = StoreRoot(Target{}, getenv)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "xdg", "b2bx"), root)
	delete(vars, "XDG_DATA_HOME")
	root, err = StoreRoot(Target{}, getenv)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "home", ".local", "share", "b2bx"), root)

	s, err := OpenSpool(Target{StoreDir: filepath.Join(dir, "profile")}, getenv)
	require.NoError(t, err)
	info, err := os.Stat(s.Root())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), info.Mode().Perm())
}

func TestSaveProfileRollsBackSecretsWhenTheFileCannotBeWritten(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	require.NoError(t, te.store.Set(ctx, "acme", "key-up", secret.New("old-up")))
	f := te.file(t)
	// Someone else writes the file meanwhile: Save refuses (ErrConcurrentChange).
	require.NoError(t, os.MkdirAll(filepath.Dir(te.path), 0o700))
	require.NoError(t, os.WriteFile(te.path, []byte("# edited by hand\n"), 0o600))

	_, err := SaveProfile(ctx, f, twoKeys(), twoSecrets(), te.store, SaveOptions{})
	require.ErrorIs(t, err, credentials.ErrConcurrentChange)
	var se *StageError
	require.ErrorAs(t, err, &se)
	require.Equal(t, StageFile, se.Stage)
	v, err := te.store.Get(ctx, "acme", "key-up")
	require.NoError(t, err)
	require.Equal(t, "old-up", v.Reveal(), "the old secret is back")
	require.Equal(t, []string{"acme/key-up"}, te.store.Accounts(), "the new secret is gone")
}

func TestSaveProfileStoreFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	te.store.FailWith(credentials.ErrLocked)
	f := te.file(t)
	_, err := SaveProfile(ctx, f, twoKeys(), twoSecrets(), te.store, SaveOptions{})
	require.ErrorIs(t, err, credentials.ErrLocked)
	var se *StageError
	require.ErrorAs(t, err, &se)
	require.Equal(t, StageSecrets, se.Stage)
	_, ok := f.Get("acme")
	require.False(t, ok, "the in-memory file is as before")
	_, err = os.Stat(te.path)
	require.ErrorIs(t, err, os.ErrNotExist)
	noCanary(t, err.Error())
}

func TestSaveProfileValidates(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	f := te.file(t)
	for _, tc := range []struct {
		name    string
		p       credentials.Profile
		secrets map[string]secret.Value
		store   credentials.SecretStore
		want    string
	}{
		{"plain http", func() credentials.Profile { p := twoKeys(); p.URL = "http://198.51.100.7"; return p }(), nil, te.store, "plain http"},
		// The app's + form saves through here: user info is refused, and
		// an unparsable URL is not echoed.
		{"user info", func() credentials.Profile {
			p := twoKeys()
			p.URL = "https://key-up:" + canaryIn + "@api.example.com"
			return p
		}(), nil, te.store, "must not contain a user name or password"},
		{"unparsable", func() credentials.Profile {
			p := twoKeys()
			p.URL = "https://key-up:" + canaryIn + "@exa mple.com"
			return p
		}(), nil, te.store, "(unparsable URL)"},
		{"foreign key", twoKeys(), map[string]secret.Value{"other": secret.New(canaryIn)}, te.store, `key "other", which profile acme does not use`},
		{"secret with a space", twoKeys(), map[string]secret.Value{"key-up": secret.New("a " + canaryIn)}, te.store, "spaces or control characters"},
		{"empty secret", twoKeys(), map[string]secret.Value{"key-up": secret.New(" ")}, te.store, "it is empty"},
		{"no store", twoKeys(), twoSecrets(), nil, "no secret store"},
	} {
		_, err := SaveProfile(ctx, f, tc.p, tc.secrets, tc.store, SaveOptions{})
		require.ErrorContains(t, err, tc.want, tc.name)
		var se *StageError
		require.ErrorAs(t, err, &se, tc.name)
		require.Equal(t, StageValidate, se.Stage, tc.name)
		noCanary(t, err.Error())
	}
	require.Empty(t, te.store.Accounts())
	require.Empty(t, f.Names())
}

func TestSaveProfileReplaceDropsUnusedSecrets(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	require.NoError(t, AddProfile(ctx, te.file(t), twoKeys(), twoSecrets(), te.store))
	p := twoKeys()
	p.MailboxKeyID = "key-new"
	res, err := SaveProfile(ctx, te.file(t), p, map[string]secret.Value{"key-new": secret.New("s-new")}, te.store, SaveOptions{Replace: true})
	require.NoError(t, err)
	require.True(t, res.Replaced)
	require.Equal(t, []string{"key-new"}, res.Stored)
	require.Empty(t, res.Leftovers)
	require.ElementsMatch(t, []string{"acme/key-up", "acme/key-new"}, te.store.Accounts())
}

func TestConnStates(t *testing.T) {
	ctx := context.Background()
	te := newTestEnv(t)
	require.NoError(t, AddProfile(ctx, te.file(t), twoKeys(), map[string]secret.Value{"key-up": secret.New(canaryIn)}, te.store))
	env := credentials.Profile{Name: "envkey", URL: "https://x.example", ConnectionID: "c", InboxKeyID: "k-env", MailboxKeyID: "k-env"}
	require.NoError(t, AddProfile(ctx, te.file(t), env, nil, nil))
	te.vars[EnvAPIKey] = "k-env:" + canaryEnv

	states := ConnStates(ctx, te.store, te.file(t), te.env().getenv)
	require.Len(t, states, 2)
	require.Equal(t, "acme", states[0].Profile.Name)
	require.Equal(t, []SecretState{StateKeyring, StateMissing}, []SecretState{states[0].Keys[0].State, states[0].Keys[1].State})
	require.ErrorIs(t, states[0].Keys[1].Err, credentials.ErrNotFound)
	require.Equal(t, "envkey", states[1].Profile.Name)
	require.Equal(t, StateEnv, states[1].Keys[0].State)
	require.Equal(t, []credentials.Use{credentials.UseInbox, credentials.UseMailbox}, states[1].Keys[0].Uses)
	missing, problem := Problems(states)
	require.Equal(t, 1, missing)
	require.NoError(t, problem)

	for kind, want := range map[error]SecretState{credentials.ErrLocked: StateLocked, credentials.ErrTimeout: StateTimeout,
		credentials.ErrNoService: StateNoKeyring, credentials.ErrKeyring: StateError} {
		te.store.FailWith(kind)
		states = ConnStates(ctx, te.store, te.file(t), te.env().getenv)
		require.Equal(t, want, states[0].Keys[0].State, kind)
		require.Equal(t, StateEnv, states[1].Keys[0].State, "the env key still resolves")
		_, problem = Problems(states)
		require.ErrorIs(t, problem, kind)
		var all strings.Builder
		for _, cs := range states {
			for _, k := range cs.Keys {
				if k.Err != nil {
					all.WriteString(k.Err.Error())
				}
			}
		}
		noCanary(t, all.String())
	}
	require.Empty(t, ConnStates(ctx, te.store, &credentials.File{}, te.env().getenv))
	require.NotNil(t, ConnStates(ctx, te.store, &credentials.File{}, te.env().getenv), "an empty list, not nil (JSON [])")
}

func TestStoreSecretsRestoresOnFailure(t *testing.T) {
	ctx := context.Background()
	m := credentials.NewMemoryStore()
	require.NoError(t, m.Set(ctx, "p", "a", secret.New("old-a")))
	fs := &failingSet{SecretStore: m, failOn: "b"}
	_, err := StoreSecrets(ctx, fs, "p", []KeySecret{{KeyID: "a", Secret: secret.New("new-a")}, {KeyID: "b", Secret: secret.New("new-b")}})
	require.ErrorIs(t, err, credentials.ErrKeyring)
	require.NotErrorIs(t, err, ErrRollbackFailed)
	v, err := m.Get(ctx, "p", "a")
	require.NoError(t, err)
	require.Equal(t, "old-a", v.Reveal())
	require.Equal(t, []string{"p/a"}, m.Accounts())
}

// failingSet fails the Set of one key.
type failingSet struct {
	credentials.SecretStore
	failOn string
}

func (f *failingSet) Set(ctx context.Context, profile, keyID string, v secret.Value) error {
	if keyID == f.failOn {
		return &credentials.StoreError{Op: "set", Profile: profile, KeyID: keyID, Kind: credentials.ErrKeyring, Err: errors.New("boom")}
	}
	return f.SecretStore.Set(ctx, profile, keyID, v)
}
