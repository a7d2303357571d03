package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/internal/orders/orderstest"
)

func TestPinPlacesAnswerErrors(t *testing.T) {
	orders := filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi")
	contrl := filepath.Join("..", "..", "edi", "pin", "testdata", "contrl_rejects_42.edi")
	aperak := filepath.Join("..", "..", "edi", "pin", "testdata", "aperak_42.edi")

	code, out, errOut := runCmd(t, "", nil, "pin", orders, contrl, aperak)
	require.Equal(t, exitFileError, code, errOut)
	require.Contains(t, out, "6 error(s) reported")
	require.Contains(t, out, "segment index 6  NAD+BY+4012345000085::9++M\u00fcller")
	require.Contains(t, out, `element 2:1 (C082.3039 Party id. identification): value "4012345000085"`)
	require.Contains(t, out, "segment index 12  LIN+2++4000862141411:EN")

	code, out, errOut = runCmd(t, "", nil, "pin", orders, contrl, "--json")
	require.Equal(t, exitFileError, code, errOut)
	j := decodeJSON[pinJSON](t, out)
	require.Len(t, j.Pins, 3)
	require.Equal(t, 6, j.Pins[0].Segment)
	require.Equal(t, 2, j.Pins[0].Element)
	require.Equal(t, "12", j.Pins[0].Code)
	require.True(t, strings.HasPrefix(j.Pins[0].SegmentText, "NAD+BY+"))
	require.Equal(t, contrl, j.Pins[0].Answer)

	ok := orderstest.WriteFile(t, "ok.edi", []byte("UNB+UNOA:3+X:14+4012345000009:14+250312:1031+C'UNH+C1+CONTRL:2:2:UN'UCI+ICR0042+4012345000009:14+4098765000003:14+7'UNT+3+C1'UNZ+1+C'"))
	code, out, _ = runCmd(t, "", nil, "pin", orders, ok)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "report no error")

	other := filepath.Join("..", "..", "edi", "pin", "testdata", "contrl_other.edi")
	code, _, errOut = runCmd(t, "", nil, "pin", orders, other)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "answers another interchange")
	code, _, _ = runCmd(t, "", nil, "pin", orders)
	require.Equal(t, exitUsage, code)
}
