package keyringit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zalando/go-keyring"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const (
	// envIT turns the real-keyring tests on; with it set they fail, never
	// skip, when the keyring cannot be used.
	envIT = "B2BX_KEYRING_IT"
	// envChild selects a scenario of TestKeyringChild in a child process.
	envChild = "B2BX_KEYRING_CHILD"

	canaryUp = "CANARY-IT-INBOX-7f3a9c"
	canaryMb = "CANARY-IT-MAILBOX-51be02"
)

func itEnabled() bool { return os.Getenv(envIT) == "1" }

func requireIT(t *testing.T) {
	t.Helper()
	if !itEnabled() {
		t.Skip("real-keyring test: run it with B2BX_KEYRING_IT=1 inside .ci/keyring-session (see DEVELOPERS.md)")
	}
}

func uniqueProfile(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano())
}

func noEnv(string) string { return "" }

// TestRealKeyringRoundTrip sets, gets, lists, rotates and deletes secrets
// through the OS keyring (gnome-keyring in CI).
func TestRealKeyringRoundTrip(t *testing.T) {
	requireIT(t)
	ctx := context.Background()
	store := credentials.NewKeyringStore(credentials.WithTimeout(15 * time.Second))
	p := credentials.Profile{Name: uniqueProfile("it"), URL: "https://api.example.com", ConnectionID: "c-it",
		InboxKeyID: "key-up", MailboxKeyID: "key-mb"}
	t.Cleanup(func() {
		_ = store.Delete(ctx, p.Name, p.InboxKeyID)
		_ = store.Delete(ctx, p.Name, p.MailboxKeyID)
	})

	_, err := store.Get(ctx, p.Name, p.InboxKeyID)
	if !errors.Is(err, credentials.ErrNotFound) {
		t.Fatalf("%s=1 but the OS keyring is not usable; run the tests through .ci/keyring-session (see DEVELOPERS.md): %v", envIT, err)
	}

	require.NoError(t, store.Set(ctx, p.Name, p.InboxKeyID, secret.New(canaryUp)))
	require.NoError(t, store.Set(ctx, p.Name, p.MailboxKeyID, secret.New(canaryMb)))
	v, err := store.Get(ctx, p.Name, p.InboxKeyID)
	require.NoError(t, err)
	require.Equal(t, canaryUp, v.Reveal())
	requireNotOnDisk(t)

	raw, err := keyring.Get(credentials.Service, p.Name+"/"+p.InboxKeyID)
	require.NoError(t, err, `stored under service "b2bx", account "<profile>/<key id>"`)
	require.Equal(t, canaryUp, raw)
	if runtime.GOOS == "linux" {
		require.Equal(t, 1, secretServiceItems(t, p.Name+"/"+p.InboxKeyID), "the Secret Service itself has the item")
	}

	keys := credentials.Inspect(ctx, store, p, noEnv)
	require.Len(t, keys, 2)
	for _, k := range keys {
		require.Equal(t, credentials.SourceKeyring, k.Source, k.KeyID)
	}
	r, err := credentials.Resolve(ctx, store, p, noEnv)
	require.NoError(t, err)
	require.Equal(t, canaryMb, r.Mailbox.Credential.Secret.Reveal())

	require.NoError(t, store.Set(ctx, p.Name, p.MailboxKeyID, secret.New(canaryMb+"-rotated")))
	v, err = store.Get(ctx, p.Name, p.MailboxKeyID)
	require.NoError(t, err)
	require.Equal(t, canaryMb+"-rotated", v.Reveal())
	if runtime.GOOS == "linux" {
		require.Equal(t, 1, secretServiceItems(t, p.Name+"/"+p.MailboxKeyID), "rotation replaces the item, it does not add one")
	}

	for _, id := range []string{p.InboxKeyID, p.MailboxKeyID} {
		require.NoError(t, store.Delete(ctx, p.Name, id))
		_, err = store.Get(ctx, p.Name, id)
		require.ErrorIs(t, err, credentials.ErrNotFound)
		require.ErrorIs(t, store.Delete(ctx, p.Name, id), credentials.ErrNotFound)
	}
	for _, k := range credentials.Inspect(ctx, store, p, noEnv) {
		require.ErrorIs(t, k.StoreErr, credentials.ErrNotFound)
	}
}

// TestRealKeyringTooLargeIsCheckedFirst: an oversized secret fails with
// the size message, before the keyring sees it.
func TestRealKeyringTooLargeIsCheckedFirst(t *testing.T) {
	requireIT(t)
	store := credentials.NewKeyringStore()
	name := uniqueProfile("it-big")
	err := store.Set(context.Background(), name, "k", secret.New(strings.Repeat("x", 1<<20)))
	require.ErrorIs(t, err, credentials.ErrTooLarge)
	_, err = store.Get(context.Background(), name, "k")
	require.ErrorIs(t, err, credentials.ErrNotFound)
}

// secretServiceItems counts the items with b2bx's attributes for account,
// asking the Secret Service over D-Bus without go-keyring.
func secretServiceItems(t *testing.T, account string) int {
	t.Helper()
	out, err := exec.Command("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets",
		"/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SearchItems",
		"dict:string:string:service,"+credentials.Service+",username,"+account).CombinedOutput()
	require.NoError(t, err, "dbus-send SearchItems: %s", out)
	return strings.Count(string(out), `object path "/org/freedesktop/secrets/collection/`)
}

// requireNotOnDisk checks the throwaway keyring's files (.ci/keyring-session
// puts them under $XDG_DATA_HOME/keyrings) never hold a canary in clear.
func requireNotOnDisk(t *testing.T) {
	t.Helper()
	dir := os.Getenv("XDG_DATA_HOME")
	if os.Getenv("B2BX_KEYRING_SESSION") != "1" || dir == "" {
		return // the user's own keyring: not ours to read
	}
	err := filepath.WalkDir(filepath.Join(dir, "keyrings"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, c := range []string{canaryUp, canaryMb} {
			require.NotContains(t, string(b), c, "keyring file %s holds a secret in clear", p)
		}
		return nil
	})
	require.NoError(t, err)
}

// BenchmarkRealKeyring measures one Get and one Set through the real
// Secret Service (what each key of 'conn ls' or a -c command costs).
func BenchmarkRealKeyring(b *testing.B) {
	if !itEnabled() {
		b.Skip("run with B2BX_KEYRING_IT=1 inside .ci/keyring-session")
	}
	ctx := context.Background()
	store := credentials.NewKeyringStore()
	name := uniqueProfile("bench")
	v := secret.New(canaryUp)
	if err := store.Set(ctx, name, "k", v); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Delete(ctx, name, "k") })
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			if _, err := store.Get(ctx, name, "k"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Set", func(b *testing.B) {
		for b.Loop() {
			if err := store.Set(ctx, name, "k", v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
