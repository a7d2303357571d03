package session

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/stretchr/testify/require"
	"github.com/zalando/go-keyring"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
)

// TestStoreFromEnv: a bad $B2BX_KEYRING_TIMEOUT is refused with the
// variable's name; the store is sticky: once the keyring proved
// unreachable it is not asked again (twenty profiles must not wait
// twenty timeouts), while a new store asks afresh.
//
// keyring.MockInit is global: this test must not run in parallel.
func TestStoreFromEnv(t *testing.T) {
	env := func(timeout string) func(string) string {
		return func(k string) string {
			if k == credentials.EnvKeyringTimeout {
				return timeout
			}
			return ""
		}
	}
	for _, bad := range []string{"soon", "0", "-5s"} {
		_, err := StoreFromEnv(env(bad))
		require.ErrorContains(t, err, credentials.EnvKeyringTimeout, "%q", bad)
	}

	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/b2bx-test-bus") // passes the bus preflight
	keyring.MockInitWithError(dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown",
		Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}})
	t.Cleanup(keyring.MockInit)
	st, err := StoreFromEnv(env("2s"))
	require.NoError(t, err)
	_, err = st.Get(t.Context(), "acme", "k1")
	require.ErrorIs(t, err, credentials.ErrNoService)

	keyring.MockInit() // the keyring would answer now
	_, err = st.Get(t.Context(), "acme", "k2")
	require.ErrorIs(t, err, credentials.ErrNoService, "sticky: the unreachable keyring is not asked again")

	fresh, err := StoreFromEnv(env(""))
	require.NoError(t, err)
	_, err = fresh.Get(t.Context(), "acme", "k1")
	require.ErrorIs(t, err, credentials.ErrNotFound, "a new store asks the keyring")
}
