package credentials

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	dbus "github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// D-Bus error names go-keyring passes through on Linux and the BSDs.
var dbusKinds = map[string]error{
	"org.freedesktop.DBus.Error.ServiceUnknown":      ErrNoService, // nothing owns org.freedesktop.secrets
	"org.freedesktop.DBus.Error.NameHasNoOwner":      ErrNoService,
	"org.freedesktop.DBus.Error.NoServer":            ErrNoService,
	"org.freedesktop.DBus.Error.Disconnected":        ErrNoService,
	"org.freedesktop.DBus.Error.Spawn.ChildExited":   ErrNoService, // activation of the daemon failed
	"org.freedesktop.DBus.Error.Spawn.ExecFailed":    ErrNoService,
	"org.freedesktop.DBus.Error.Spawn.ChildSignaled": ErrNoService,
	"org.freedesktop.DBus.Error.NoReply":             ErrTimeout, // the daemon did not answer within D-Bus's own limit
	"org.freedesktop.DBus.Error.Timeout":             ErrTimeout,
	"org.freedesktop.Secret.Error.IsLocked":          ErrLocked,
	"org.freedesktop.Secret.Error.NoSuchObject":      ErrLocked, // no default collection (e.g. KeePassXC without an open database)
}

// classify maps a provider error to one of the sentinels.
func classify(err error) error {
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, keyring.ErrSetDataTooBig):
		return ErrTooLarge
	}
	var de dbus.Error
	var dp *dbus.Error
	switch {
	case errors.As(err, &de):
		return dbusKind(de.Name)
	case errors.As(err, &dp):
		return dbusKind(dp.Name)
	}
	var ee *exec.Error
	if errors.As(err, &ee) && strings.Contains(ee.Name, "dbus-launch") {
		return ErrNoService // no session bus and nothing to autolaunch one
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		return ErrNoService // the bus socket is gone
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "failed to unlock correct collection"):
		return ErrLocked // go-keyring: the unlock prompt failed or was dismissed
	case strings.HasPrefix(msg, "dbus: "):
		return ErrNoService // godbus: no or invalid session bus address, auth failed
	}
	return ErrKeyring
}

func dbusKind(name string) error {
	if k, ok := dbusKinds[name]; ok {
		return k
	}
	return ErrKeyring
}

// busPreflight refuses to call the Secret Service when no session bus can
// be found, before godbus would run dbus-launch: an autolaunched bus (from
// dbus-x11) outlives b2bx and starts a keyring daemon nobody unlocks.
func busPreflight(goos string, getenv func(string) string, exists func(string) bool) error {
	switch goos {
	case "darwin", "windows", "ios", "android", "plan9", "js", "wasip1":
		return nil
	}
	addr := getenv("DBUS_SESSION_BUS_ADDRESS")
	switch {
	case addr == "disabled:" || strings.HasPrefix(addr, "disabled:"):
		return errors.New("the D-Bus session bus is turned off (DBUS_SESSION_BUS_ADDRESS=disabled)")
	case addr != "" && addr != "autolaunch:":
		return nil
	}
	if exists("/run/user/" + strconv.Itoa(syscall.Getuid()) + "/bus") {
		return nil
	}
	return errors.New("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set")
}

// MaxSecretLen is the largest secret (bytes) the keyring of goos takes for
// account under service: Windows Credential Manager 2560 bytes; macOS
// Keychain about 3 KB (go-keyring passes base64 through a 4096-byte command
// line); elsewhere 64 KiB, far above any API key and below the size where
// the Secret Service gets slow.
func MaxSecretLen(goos, service, account string) int {
	switch goos {
	case "windows":
		return 2560
	case "darwin", "ios":
		// "add-generic-password -U -s S -a A -w go-keyring-base64:B64\n",
		// with room for shell quotes around S and A.
		fixed := len("add-generic-password -U -s  -a  -w \n") + len("go-keyring-base64:") +
			len(service) + len(account) + 4
		room := 4096 - fixed
		if room <= 0 {
			return 0
		}
		return room / 4 * 3
	default:
		return 64 << 10
	}
}

func tooLargeHint(goos string, n, limit int) string {
	return fmt.Sprintf("it is %d bytes and the %s keyring takes at most %d; an API key secret is much shorter, so check that you pasted only the secret", n, goosName(goos), limit)
}

func goosName(goos string) string {
	switch goos {
	case "windows":
		return "Windows"
	case "darwin", "ios":
		return "macOS"
	}
	return goos
}

// hint says what to do about a failure of the given kind.
func hint(kind error, goos, op, profile, keyID string, timeout time.Duration) string {
	env := "export B2BX_API_KEY=" + keyID + ":<secret> to skip the keyring"
	switch kind {
	case ErrNotFound:
		if op == "delete" {
			return "nothing to delete"
		}
		return fmt.Sprintf("store it with 'b2bx conn set-secret %s --key-id %s', or %s", profile, keyID, env)
	case ErrNoService:
		if goos == "darwin" || goos == "windows" {
			return "the system keychain could not be reached; or " + env
		}
		return "install and start a Secret Service: gnome-keyring (apt install gnome-keyring) or KeePassXC with " +
			"Secret Service integration enabled. Without a desktop session, run b2bx inside 'dbus-run-session -- $SHELL' after " +
			"'printf %s PASSWORD | gnome-keyring-daemon --unlock --components=secrets'. Or " + env
	case ErrLocked:
		return "unlock the keyring (log in to the desktop, or unlock the login collection in Seahorse " +
			"\"Passwords and Keys\" or the KeePassXC database) and run the command again; or " + env
	case ErrTimeout:
		return fmt.Sprintf("no answer within %s; the keyring may be waiting for you in an unlock prompt, or be hung. "+
			"Unlock it and run the command again (a write may still have landed), raise $%s (e.g. 2m), or %s",
			timeout, EnvKeyringTimeout, env)
	}
	return "check the keyring (Secret Service, Keychain or Credential Manager), or " + env
}
