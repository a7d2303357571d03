package edi

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPreflightOrdersOK(t *testing.T) {
	facts, err := PreflightOrders(fixture(t, "orders_d96a.edi"))
	require.NoError(t, err)
	require.NotNil(t, facts.Doc)
	require.Equal(t, "4012345000009", facts.SenderID)
	require.Equal(t, "14", facts.SenderQualifier)
	require.Equal(t, "4098765000003", facts.RecipientID)
	require.Equal(t, "14", facts.RecipientQualifier)
	require.Equal(t, "ICR0001", facts.ControlRef)
	require.Equal(t, []OrderFact{{Ref: "M0001", DocNumber: "PO-4711"}}, facts.Messages)

	// D.25A: BGM element 2 is the composite C106; component 1 is 1004.
	facts, err = PreflightOrders(fixture(t, "utf8_orders_d25a.edi"))
	require.NoError(t, err)
	require.Equal(t, []OrderFact{{Ref: "M0001", DocNumber: "PO-2025-0815"}}, facts.Messages)
}

func TestPreflightSeveralOrders(t *testing.T) {
	data := "UNB+UNOA:3+SENDER:14+RECEIVER:14+250312:1030+MULTI'" +
		"UNH+1+ORDERS:D:96A:UN'BGM+220+A-1+9'DTM+137:20250312:102'UNS+S'UNT+5+1'" +
		"UNH+2+ORDERS:D:96A:UN'BGM+220+A-2+9'DTM+137:20250312:102'UNS+S'UNT+5+2'UNZ+2+MULTI'"
	facts, err := PreflightOrders([]byte(data))
	require.NoError(t, err)
	require.Equal(t, "MULTI", facts.ControlRef)
	require.Equal(t, []OrderFact{{"1", "A-1"}, {"2", "A-2"}}, facts.Messages)

	// Warnings do not block: lower case in UNOA.
	_, err = PreflightOrders([]byte(strings.Replace(data, "A-1", "a-1", 1)))
	require.NoError(t, err)
}

func TestPreflightRefusals(t *testing.T) {
	two := string(fixture(t, "orders_d96a.edi")) + string(fixture(t, "crlf.edi"))
	noBGM := "UNB+UNOA:3+S:14+R:14+250312:1030+NB'UNH+1+ORDERS:D:96A:UN'DTM+137:20250312:102'UNT+3+1'UNZ+1+NB'"
	missingDTM := "UNB+UNOA:3+S:14+R:14+250312:1030+MD'UNH+1+ORDERS:D:96A:UN'BGM+220+A-1+9'UNS+S'UNT+4+1'UNZ+1+MD'"
	tests := []struct {
		name   string
		data   string
		kind   PreflightKind
		phrase string
	}{
		{"empty", "", PreflightEmpty, "the file is empty"},
		{"only line breaks", "\r\n\r\n", PreflightEmpty, "the file is empty"},
		{"not edifact", "hello world", PreflightNoInterchange, "no UNB segment"},
		{"bare message", string(fixture(t, "bare_message.edi")), PreflightNoInterchange, "no interchange envelope"},
		{"two interchanges", two, PreflightManyInterchanges, "contains 2 interchanges"},
		{"data after UNZ", string(fixture(t, "errors/data_after_unz.edi")), PreflightManyInterchanges, "outside its interchange"},
		{"no messages", string(fixture(t, "errors/empty_interchange.edi")), PreflightNoMessages, "contains no messages"},
		{"ordrsp", string(fixture(t, "ordrsp_d96a.edi")), PreflightNotOrders, `is "ORDRSP", not ORDERS`},
		{"invoic in group", string(fixture(t, "groups_ung_une.edi")), PreflightNotOrders, `message 3 (reference "3"`},
		{"unt count", string(fixture(t, "errors/unt_count.edi")), PreflightEnvelope, "UNT_COUNT_MISMATCH at segment 3"},
		{"structure", missingDTM, PreflightEnvelope, "SEGMENT_MISSING at segment 3, offset 72: message \"1\" (ORDERS): mandatory segment DTM (position 0030) is missing"},
		{"junk", string(fixture(t, "junk_before_unb.edi")), PreflightEnvelope, "JUNK_BEFORE_INTERCHANGE"},
		{"missing unz", string(fixture(t, "missing_unz.edi")), PreflightEnvelope, "UNZ_MISSING"},
		{"no BGM", noBGM, PreflightEnvelope, "mandatory segment BGM (position 0020) is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts, err := PreflightOrders([]byte(tt.data))
			require.Nil(t, facts)
			var pe *PreflightError
			require.True(t, errors.As(err, &pe), "error %v", err)
			require.Equal(t, tt.kind, pe.Kind)
			require.Contains(t, err.Error(), tt.phrase)
			if tt.kind == PreflightEnvelope {
				require.NotEmpty(t, pe.Issues)
				for _, is := range pe.Issues {
					require.Equal(t, SeverityError, is.Severity)
				}
			}
		})
	}
}

func TestPreflightListsFirstIssuesOnly(t *testing.T) {
	var b strings.Builder
	b.WriteString("UNB+UNOA:3+S:14+R:14+250312:1030+X'")
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "UNH+%d+ORDERS:D:96A:UN'BGM+220+N+9'DTM+137:20250312:102'UNS+S'UNT+9+%d'", i+1, i+1)
	}
	b.WriteString("UNZ+6+X'")
	_, err := PreflightOrders([]byte(b.String()))
	var pe *PreflightError
	require.ErrorAs(t, err, &pe)
	require.Len(t, pe.Issues, 6)
	require.Contains(t, err.Error(), "has 6 error(s)")
	require.Contains(t, err.Error(), "... and 3 more")
}
