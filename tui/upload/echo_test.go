package upload

import (
	"testing"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
	"github.com/nutrab2b/b2bx/tui/common/commontest"
)

// TestKeyEchoIsSanitised: the Idempotency-Key input shows pasted
// invisible characters made visible (and refuses them as a key).
func TestKeyEchoIsSanitised(t *testing.T) {
	e := newSimEnv(t)
	m := e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("REF1", 1, "PO-4711"))})
	m = press(t, m, "e")
	m.keyIn.SetValue("")
	m, _ = m.Update(commontest.Paste(commontest.HostilePaste))
	commontest.RequireSafeEcho(t, m.View())
}
