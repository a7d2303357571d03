package edi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func contractTexts(t *testing.T, data []byte, dir string) []string {
	t.Helper()
	var out []string
	for _, f := range ContractFindings(mustParse(t, data), dir) {
		out = append(out, f.Text)
	}
	return out
}

// TestContractFindings: the contract's version rules, per message type.
func TestContractFindings(t *testing.T) {
	msg := func(unh string, syntax string) []byte {
		return []byte("UNB+UNOC:" + syntax + "+4012345000009:14+4098765000003:14+20250312:1030+R'UNH+1+" + unh + "'UNT+2+1'UNZ+1+R'")
	}
	for _, tt := range []struct {
		name, unh, syntax, dir string
		want                   string
	}{
		{"ORDERS D.96A on D.96A", "ORDERS:D:96A:UN", "3", "D.96A", ""},
		{"ORDERS D.25A unknown connection", "ORDERS:D:25A:UN", "3", "", ""},
		{"ORDERS D.25A on D.96A", "ORDERS:D:25A:UN", "3", "D.96A", `ORDERS "1" is in directory D.25A, but this connection's profile revision is D.96A`},
		{"ORDERS D.01B", "ORDERS:D:01B:UN", "3", "", `ORDERS "1" is in directory D.01B; the Partner API exchanges ORDERS in D.96A or D.25A only`},
		{"ORDRSP D.96A on D.25A", "ORDRSP:D:96A:UN", "3", "D.25A", `ORDRSP "1" is in directory D.96A, but this connection's profile revision is D.25A`},
		{"APERAK D.25A on D.25A", "APERAK:D:25A:UN", "3", "D.25A", ""},
		{"CONTRL 2:2 under 3", "CONTRL:2:2:UN", "3", "D.96A", ""},
		{"CONTRL 4:1 under 4", "CONTRL:4:1:UN", "4", "D.96A", ""},
		{"CONTRL 4:1 under 3", "CONTRL:4:1:UN", "3", "", `CONTRL "1" is version 4:1 under syntax version 3; the contract's CONTRL is 2:2 under syntax version 3`},
		{"CONTRL 2:2 under 4", "CONTRL:2:2:UN", "4", "", `CONTRL "1" is version 2:2 under syntax version 4; the contract's CONTRL is 4:1 under syntax version 4`},
		{"INVOIC is not the contract's", "INVOIC:D:01B:UN", "3", "D.96A", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := contractTexts(t, msg(tt.unh, tt.syntax), tt.dir)
			if tt.want == "" {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			require.Contains(t, got[0], tt.want)
		})
	}
	// The shipped fixtures follow the contract, except CONTRL D:3.
	for _, name := range []string{"orders_d96a.edi", "ordrsp_d25a.edi", "aperak_d96a.edi", "contrl_22.edi", "contrl_41.edi"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "edifact", name))
		require.NoError(t, err)
		require.Empty(t, contractTexts(t, data, ""), name)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "edifact", "contrl_d3.edi"))
	require.NoError(t, err)
	require.Len(t, contractTexts(t, data, ""), 1)
}
