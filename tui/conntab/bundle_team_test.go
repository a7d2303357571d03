package conntab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// T on a delivery only a colleague fetched (the ID from find, H's
// answers) bundles the team store's bytes (Options.Colleague) and says
// who fetched it; without a Colleague it is not in the local store.
func TestBundleOfAColleaguesDeliveryInTheApp(t *testing.T) {
	bundlesIn(t)
	e := newAnswerEnv(t)
	m := e.tab(t)
	data := []byte("UNB+UNOA:3+4098765000003:14+4012345000009:14+260312:1031+CTL1'UNH+C1+CONTRL:2:2:UN'UCI+ICR0001+4012345000009:14+4098765000003:14+7'UNT+3+C1'UNZ+1+CTL1'")
	sum := sha256.Sum256(data)
	m.colleague = func(_ context.Context, conn, id string) (spool.Meta, []byte, string, bool, error) {
		if id != "d-alice" {
			return spool.Meta{}, nil, "", false, nil
		}
		return spool.Meta{ConnectionID: conn, DeliveryAttemptID: id, MessageType: "CONTRL", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, data, "alice on host-3", true, nil
	}
	m, cmd := m.startBundle("d-alice")
	m, notes := settle(t, m, cmd)
	require.Contains(t, infoText(notes), "bundle for the partner's operator")
	b, err := os.ReadFile(filepath.Join(m.bundlePath, "README.txt"))
	require.NoError(t, err)
	require.Contains(t, string(b), "fetched by alice on host-3")

	m.colleague = nil
	m, cmd = m.startBundle("d-alice")
	_, notes = settle(t, m, cmd)
	require.Contains(t, infoText(notes), "not in the local store")
}
