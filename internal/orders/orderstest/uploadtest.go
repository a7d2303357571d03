// Package uploadtest holds the test input that the upload domain, the
// CLI's upload command and the app's upload screen share. Only tests
// import it.
package orderstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Orders builds one interchange with an ORDERS message per document number.
func Orders(ref string, qty int, docs ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+%s'", ref)
	for i, d := range docs {
		fmt.Fprintf(&b, "UNH+%d+ORDERS:D:96A:UN'BGM+220+%s+9'DTM+137:20250602:102'NAD+BY+4012345000009::9'LIN+1++4000862141404:SRS'QTY+21:%d'UNS+S'UNT+8+%d'", i+1, d, qty, i+1)
	}
	fmt.Fprintf(&b, "UNZ+%d+%s'", len(docs), ref)
	return []byte(b.String())
}

// WriteFile writes data to name in a new temporary directory (mode 0600)
// and returns its path.
func WriteFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

// OrdersIC is an interchange with one ORDERS for doc from buyer to
// supplier, control reference ref.
func OrdersIC(buyer, supplier, ref, doc string) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+%s:14+%s:14+260312:1030+%s'UNH+M1+ORDERS:D:96A:UN'BGM+220+%s+9'"+
		"DTM+137:20260312:102'NAD+BY+%s::9'NAD+SU+%s::9'LIN+1++4000862141404:SRS'QTY+21:10'UNS+S'UNT+9+M1'UNZ+1+%s'",
		buyer, supplier, ref, doc, buyer, supplier, ref)
}

// Contrl is the supplier's CONTRL (own control reference) for the
// buyer's interchange ref: action 7 (accepted) or 4 (rejected, with a
// segment error in message M1).
func Contrl(supplier, buyer, own, ref string, rejected bool) []byte {
	if rejected {
		return fmt.Appendf(nil, "UNB+UNOA:3+%s:14+%s:14+260312:1031+%s'UNH+C1+CONTRL:2:2:UN'UCI+%s+%s:14+%s:14+4'"+
			"UCM+M1+ORDERS:D:96A:UN+4'UCS+3+13'UNT+5+C1'UNZ+1+%s'", supplier, buyer, own, ref, buyer, supplier, own)
	}
	return fmt.Appendf(nil, "UNB+UNOA:3+%s:14+%s:14+260312:1031+%s'UNH+C1+CONTRL:2:2:UN'UCI+%s+%s:14+%s:14+7'UNT+3+C1'UNZ+1+%s'",
		supplier, buyer, own, ref, buyer, supplier, own)
}
