package upload

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

// TestScreenNamesTheConnectionsDirectory: the upload screen's title says
// where the upload goes, the profile's directory and its partner rules
// (issue 21 §1, §3), on the picker and on the report, and the report
// lists the partner rule's finding with its file:line.
func TestScreenNamesTheConnectionsDirectory(t *testing.T) {
	e := newSimEnv(t)
	e.conn.Target.Directory = "D.96A"
	e.conn.Target.MIG = filepath.Join("..", "..", "testdata", "mig", "demo.toml")
	m := e.open(t, Options{})
	require.Contains(t, m.View(), "Upload ORDERS to tui · D.96A · partner rules demo.toml")

	m = e.open(t, Options{Path: e.file(t, "po.edi", orderstest.Orders("R1", 1, "PO-1"))})
	v := m.View()
	require.Contains(t, v, "Upload ORDERS to tui · D.96A · partner rules demo.toml — po.edi")
	require.Contains(t, v, "demo.toml:5: ORDERS \"1\" has 0 NAD+DP; the partner requires at least 1")
}
