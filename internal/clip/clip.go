// Package clip is the domain half of the app's `y` (copy): which values
// of an entry, a claim, a stored delivery or an upload a person may copy
// (delivery ID, interchange ID, hash, stored path, idempotency key,
// correlation ID — never a secret or claim token), and the OSC 52
// sequence that puts one on the clipboard of the terminal, through tmux
// and over SSH. It imports no UI code; writing the sequence to the
// terminal is the app's.
package clip

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// Item is one value that can be copied, with what it is.
type Item struct {
	Label string // "delivery ID", "SHA-256", ...
	Value string // terminal-safe (termsafe): what lands on the clipboard
}

func items(pairs ...string) []Item {
	var out []Item
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			out = append(out, Item{Label: pairs[i], Value: termsafe.String(pairs[i+1])})
		}
	}
	return out
}

// ForEntry lists a mailbox entry's copyable values.
func ForEntry(e apiclient.Entry) []Item {
	return items("delivery ID", e.DeliveryAttemptID, "interchange ID", e.InterchangeID, "SHA-256", e.PayloadSHA256)
}

// ForClaim lists a claim's copyable values: never its token.
func ForClaim(c apiclient.Claim) []Item {
	return items("delivery ID", c.DeliveryAttemptID, "correlation ID", c.CorrelationID)
}

// ForStored lists a stored delivery's copyable values.
func ForStored(st spool.Stored) []Item {
	m := st.Meta
	return items("delivery ID", m.DeliveryAttemptID, "interchange ID", m.InterchangeID, "SHA-256", m.SHA256,
		"stored path", st.Path, "receipt ID", m.ReceiptID)
}

// ForUpload lists an upload's copyable values.
func ForUpload(r spool.UploadRecord) []Item {
	return items("upload ID", r.UploadID, "interchange ID", r.InterchangeID, "idempotency key", r.Key,
		"SHA-256", r.SHA256, "correlation ID", r.CorrelationID, "file", r.File)
}

// MaxValue is the longest value OSC52 sends: terminals and tmux drop
// longer clipboard sequences (xterm's default limit is about 100 kB of
// base64).
const MaxValue = 64 << 10

// ErrTooLong: the value is over MaxValue.
var ErrTooLong = errors.New("too long for the terminal's clipboard")

// OSC52 is the sequence that sets the clipboard to value: ESC ] 52 ; c ;
// base64 BEL. Inside tmux (tmux true, e.g. $TMUX set) it is wrapped in
// tmux's passthrough (ESC P tmux; … ESC \), so it reaches the outer
// terminal even without tmux's set-clipboard; over SSH it travels like
// any output. The value is base64: nothing in it is interpreted.
func OSC52(value string, tmux bool) (string, error) {
	if len(value) > MaxValue {
		return "", fmt.Errorf("%w: %d bytes, at most %d", ErrTooLong, len(value), MaxValue)
	}
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(value)) + "\a"
	if tmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq, nil
}

// Copied is the footer's line after a copy: `copied delivery ID
// 0f8c2a4e-… (36 characters)`. Terminal-safe.
func Copied(it Item) string {
	v := it.Value
	if r := []rune(v); len(r) > 24 {
		v = string(r[:23]) + "…"
	}
	return fmt.Sprintf("copied %s %s (%d characters)", it.Label, v, len([]rune(it.Value)))
}
