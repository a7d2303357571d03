package edi

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nutrab2b/b2bx/internal/testshared"
	"github.com/stretchr/testify/require"
)

func gs1(id string) PartyID { return PartyID{ID: id, Qualifier: Coded{"14", "GS1"}} }

func TestOrdersSummary(t *testing.T) {
	d := mustParse(t, fixture(t, "orders_d96a.edi"))
	o := d.Messages[0].Summary().Orders
	require.NotNil(t, o)
	match := true
	dtm137 := DateTime{Qualifier: Coded{"137", "Document/message date/time"}, Value: "20250312",
		Format: Coded{"102", "CCYYMMDD"}, ISO: "2025-03-12", Segment: 4}
	ean := Coded{"9", "EAN (International Article Numbering association)"}
	require.Equal(t, &OrdersSummary{
		Sender: gs1("4012345000009"), Recipient: gs1("4098765000003"),
		Document: DocumentSummary{
			Name: Coded{"220", "Order"}, Number: "PO-4711", Function: Coded{"9", "Original"},
			Date: &dtm137,
			Dates: []DateTime{dtm137, {Qualifier: Coded{"2", "Delivery date/time, requested"}, Value: "20250320",
				Format: Coded{"102", "CCYYMMDD"}, ISO: "2025-03-20", Segment: 5}},
			Parties: []PartySummary{
				{Role: Coded{"BY", "Buyer"}, ID: "4012345000009", Agency: ean, GLN: true, Name: "Müller Großhandel GmbH",
					Street: "Hauptstraße 1", City: "Köln", Country: "DE", Segment: 6},
				{Role: Coded{"SU", "Supplier"}, ID: "4098765000003", Agency: ean, GLN: true, Segment: 7},
				{Role: Coded{"DP", "Delivery party"}, ID: "4012345000016", Agency: ean, GLN: true, Segment: 8},
			},
		},
		Lines:    2,
		Controls: []ControlTotal{{Qualifier: Coded{"2", "Number of line items in message"}, Value: "2", LinesMatch: &match, Segment: 15}},
	}, o)
	require.Same(t, &o.Document.Dates[0], o.Document.Date)

	// D.25A: names from D.24A (137 is "Document issue date time" there).
	o = mustParse(t, fixture(t, "utf8_orders_d25a.edi")).Messages[0].Summary().Orders
	require.Equal(t, "PO-2025-0815", o.Document.Number)
	require.Equal(t, Coded{"137", "Document issue date time"}, o.Document.Date.Qualifier)
	require.Equal(t, "Łódź Dostawca Sp. z o.o.", o.Document.Parties[1].Name)
	require.Equal(t, Coded{"9", "GS1"}, o.Document.Parties[1].Agency)
}

func TestOrdersSummaryLineCountMismatch(t *testing.T) {
	d := mustParse(t, []byte("UNB+UNOA:3+S:14+R:14+250312:1030+X'UNH+1+ORDERS:D:96A:UN'BGM+220+N-1+9'DTM+137:20250312:102'"+
		"LIN+1++1:EN'LIN+2++2:EN'UNS+S'CNT+2:3'CNT+1:17'UNT+8+1'UNZ+1+X'"))
	o := d.Messages[0].Summary().Orders
	require.Equal(t, 2, o.Lines)
	require.False(t, *o.Controls[0].LinesMatch)
	require.Nil(t, o.Controls[1].LinesMatch, "only 'number of line items' is compared")
}

func TestOrdrspSummary(t *testing.T) {
	o := mustParse(t, fixture(t, "ordrsp_d25a.edi")).Messages[0].Summary().Ordrsp
	require.NotNil(t, o)
	require.Equal(t, "RSP-2025-0815", o.Document.Number)
	require.Equal(t, Coded{"4", "Change"}, o.Document.Function)
	require.Equal(t, Coded{"AC", "Acknowledge - with detail and change"}, o.Document.ResponseType)
	require.Equal(t, "2025-03-13T08:00", o.Document.Date.ISO)
	require.Equal(t, "PO-2025-0815", o.OrderNumber)
	require.Equal(t, 3, o.Lines)
	require.Equal(t, []ActionCount{
		{Action: Coded{"5", "Accepted without amendment"}, Lines: 1},
		{Action: Coded{"3", "Changed"}, Lines: 1, Changed: true},
		{Action: Coded{"7", "Not accepted"}, Lines: 1, Changed: true},
	}, o.Actions)
	require.Equal(t, 2, o.ChangedLines)
	require.Equal(t, []LineChange{
		{Line: "2", Item: "4000862141411", ItemType: Coded{"SRV", "GS1 Global Trade Item Number"}, Action: Coded{"3", "Changed"},
			Quantities: []Quantity{
				{Qualifier: Coded{"21", "Ordered quantity"}, Value: "12", Segment: 11},
				{Qualifier: Coded{"113", "Quantity to be delivered"}, Value: "6", Segment: 12},
			}, Segment: 10},
		{Line: "3", Item: "4000862141428", ItemType: Coded{"SRV", "GS1 Global Trade Item Number"}, Action: Coded{"7", "Not accepted"},
			Quantities: []Quantity{{Qualifier: Coded{"21", "Ordered quantity"}, Value: "10", Segment: 14}}, Segment: 13},
	}, o.Changed)

	// Lines without action code are unchanged and counted as such.
	o = mustParse(t, []byte("UNH+1+ORDRSP:D:96A:UN'BGM+231+R+4'DTM+137:20250312:102'LIN+1'LIN+2+4'LIN+3+11'LIN+4'UNS+S'UNT+8+1'")).Messages[0].Summary().Ordrsp
	require.Equal(t, 0, o.ChangedLines)
	require.Equal(t, []ActionCount{
		{Action: Coded{"", "no action code"}, Lines: 2},
		{Action: Coded{"4", "No action"}, Lines: 1},
		{Action: Coded{"11", "Not amended"}, Lines: 1},
	}, o.Actions)
}

func TestAperakSummary(t *testing.T) {
	a := mustParse(t, fixture(t, "aperak_d25a.edi")).Messages[0].Summary().Aperak
	require.NotNil(t, a)
	require.Equal(t, "APE-2025-1", a.Document.Number)
	require.Equal(t, Coded{"27", "Not accepted"}, a.Document.Function)
	require.Equal(t, []Reference{{Qualifier: Coded{"ON", "Order document identifier, buyer assigned"}, Value: "PO-2025-0815", Segment: 4}}, a.Document.References)
	require.Equal(t, 2, a.ErrorsTotal)
	require.Equal(t, []AppError{
		{Code: "12", CodeList: "ZZZ", Agency: Coded{"91", "Assigned by seller or seller's agent"},
			Texts:      []string{"Unknown article number 4000862141411", "Line 2"},
			References: []Reference{{Qualifier: Coded{"LI", "Document line identifier"}, Value: "2", Segment: 8}}, Segment: 6},
		{Code: "45", Texts: []string{"Delivery date in the past"}, Segment: 10},
	}, a.Errors)

	a = mustParse(t, fixture(t, "aperak_d96a.edi")).Messages[0].Summary().Aperak
	require.Equal(t, "ACW", a.Document.References[0].Qualifier.Code)
	require.Equal(t, []AppError{{Code: "12", Texts: []string{"Unknown article number 4000862141411"}, Segment: 5}}, a.Errors)
}

func TestContrlSummary(t *testing.T) {
	c := mustParse(t, fixture(t, "contrl_22_rejected.edi")).Messages[0].Summary().Contrl
	require.NotNil(t, c)
	rejected := Coded{"4", "This level and all lower levels rejected"}
	missing := Coded{"13", "Missing"}
	invalid := Coded{"12", "Invalid value"}
	require.Equal(t, &ContrlSummary{
		InterchangeRef: "ICR0009", Sender: gs1("4012345000009"), Recipient: gs1("4098765000003"),
		Action: rejected, Verdict: "rejected", Segment: 2,
		Messages: []ContrlMessage{
			{Ref: "M0001", Type: "ORDERS", Version: "D", Release: "96A", Agency: "UN", Action: rejected, Verdict: "rejected", Segment: 3,
				Segments: []ContrlSegmentError{
					{Position: 3, SyntaxError: &missing, Segment: 4},
					{Position: 6, Segment: 5, Elements: []ContrlElementError{{SyntaxError: &invalid, Element: ElementPosition{Element: 2, Component: 1}, Segment: 6}}},
				}},
			{Ref: "M0002", Type: "ORDERS", Version: "D", Release: "96A", Agency: "UN",
				Action: Coded{"7", "This level acknowledged, next lower level acknowledged if not explicitly rejected"}, Verdict: "acknowledged", Segment: 7},
		},
	}, c)

	for file, verdict := range map[string]string{"contrl_22.edi": "acknowledged", "contrl_d3.edi": "received", "contrl_41.edi": "rejected", "contrl_41_accepted.edi": "acknowledged"} {
		c := mustParse(t, fixture(t, file)).Messages[0].Summary().Contrl
		require.Equal(t, verdict, c.Verdict, file)
	}
	c = mustParse(t, fixture(t, "contrl_41.edi")).Messages[0].Summary().Contrl
	require.Equal(t, Coded{"29", "Control count does not match number of instances received"}, *c.Messages[0].SyntaxError)
	require.Equal(t, 16, c.Messages[0].Segments[0].Position)

	// Groups (UCF) hold the UCMs after them; no UCI is said plainly.
	c = mustParse(t, []byte("UNB+UNOC:4+S+R+20250312:1031+C'UNH+1+CONTRL:4:1:UN'UCI+I1+A+B+4+18+UNB+2:1'UCF+G1+A+B+4'UCM+M1+ORDERS:D:96A:UN+4'UNT+5+1'UNZ+1+C'")).
		Messages[0].Summary().Contrl
	require.Equal(t, Coded{"18", "Unspecified error"}, *c.SyntaxError)
	require.Equal(t, "UNB", c.ServiceSegment)
	require.Equal(t, &ElementPosition{Element: 2, Component: 1}, c.Element)
	require.Empty(t, c.Messages)
	require.Len(t, c.Groups, 1)
	require.Equal(t, "G1", c.Groups[0].Ref)
	require.Equal(t, "M1", c.Groups[0].Messages[0].Ref)
	c = mustParse(t, []byte("UNH+1+CONTRL:2:2:UN'UNT+2+1'")).Messages[0].Summary().Contrl
	require.Equal(t, -1, c.Segment)
}

func TestIsoDate(t *testing.T) {
	tests := []struct{ format, value, want string }{
		{"102", "20250312", "2025-03-12"},
		{"102", "20250230", ""},
		{"102", "2025031", ""},
		{"203", "202503121030", "2025-03-12T10:30"},
		{"203", "202503122460", ""},
		{"204", "20250312103059", "2025-03-12T10:30:59"},
		{"101", "250312", "2025-03-12"},
		{"101", "990312", "1999-03-12"},
		{"201", "2503121030", "2025-03-12T10:30"},
		{"718", "20250312-20250320", ""},
		{"", "20250312", ""},
		{"102", "2025O312", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, isoDate(tt.format, tt.value), "%s %s", tt.format, tt.value)
	}
}

// TestCorpusStructure: structure problems and summaries of the real files
// (../../shared/corpus; skipped without it). Files not listed must have no
// structure issue.
func TestCorpusStructure(t *testing.T) {
	tests := map[string]func(t *testing.T, d *Document){
		// edifact-rs calls it "conforming", but UNS is M 1 in the D.96A
		// ORDERS segment table (0200): a strict recipient rejects it.
		"edifactrs_orders_d96a_conforming.edi": func(t *testing.T, d *Document) {
			require.Equal(t, []Code{CodeBareMessage, CodeCheckDigit, CodeSegmentMissing}, codes(d))
			require.Contains(t, d.Issues()[2].Message, "mandatory segment UNS (position 2090) is missing; expected before UNT (segment 7)")
			o := d.Messages[0].Summary().Orders
			require.Equal(t, "ORD-2001", o.Document.Number)
			require.Equal(t, "2026-05-17", o.Document.Date.ISO)
			require.Equal(t, []string{"BY", "SU"}, []string{o.Document.Parties[0].Role.Code, o.Document.Parties[1].Role.Code})
		},
		// BGM before UNH: outside the message, so the message lacks it;
		// UNS is missing too; NAD+ZZZ and DTM without format are fine
		// structurally.
		"edifactrs_orders_d96a_malformed.edi": func(t *testing.T, d *Document) {
			require.Equal(t, []Code{CodeOutsideMessage, CodeBareMessage, CodeSegmentMissing, CodeCheckDigit, CodeSegmentMissing, CodeUNTCountMismatch}, codes(d))
			require.Contains(t, d.Issues()[2].Message, "mandatory segment BGM (position 0020) is missing; expected before DTM (segment 3)")
			require.Contains(t, d.Issues()[4].Message, "mandatory segment UNS (position 2090) is missing")
			require.Equal(t, "", d.Messages[0].Summary().Orders.Document.Date.ISO, "no format given")
		},
		// One UNH around many repeated order bodies: each BGM after the
		// first is out of place.
		"pydifact_huge_2mb.edi": func(t *testing.T, d *Document) {
			s := structureIssues(d)
			require.Len(t, s, 101)
			require.Contains(t, d.Issues()[0].Message, "segment BGM not allowed after SG25/SG29/RFF; ORDERS D.96A has it at position 0020 (BGM)")
			require.Contains(t, d.Issues()[100].Message, "8331 more structure problem(s)")
		},
		"bots_aperak_d96a.edi": func(t *testing.T, d *Document) {
			a := d.Messages[0].Summary().Aperak
			require.Equal(t, "T0000000015", a.Document.References[0].Value)
			require.Equal(t, "ON", a.Document.References[0].Qualifier.Code)
			require.Empty(t, a.Errors, "this APERAK reports no ERC")
			require.Equal(t, "2013-01-23T01:23", a.Document.Date.ISO)
		},
		"pydifact_aperak_sv3_rejected.edi": func(t *testing.T, d *Document) {
			a := d.Messages[0].Summary().Aperak
			require.Equal(t, []AppError{{Code: "12", Texts: []string{"Order rejected due to invalid product code"}, Segment: 6}}, a.Errors)
			require.Equal(t, Coded{"7", "Duplicate"}, a.Document.Function)
		},
		"jacobemcken_contrl_d3_readme.edi": func(t *testing.T, d *Document) {
			c := d.Messages[0].Summary().Contrl
			require.Equal(t, "131", c.InterchangeRef)
			require.Equal(t, PartyID{ID: "333666999"}, c.Sender)
			require.Equal(t, "NORDEASPECIAL+TEST", c.Recipient.ID)
			require.Equal(t, "acknowledged", c.Verdict)
			m := c.Messages[0]
			require.Equal(t, []string{"1", "PAYMUL", "rejected"}, []string{m.Ref, m.Type, m.Verdict})
			require.Equal(t, Coded{"13", "Missing"}, *m.SyntaxError)
			require.Equal(t, "UNH", m.ServiceSegment)
			require.Equal(t, &ElementPosition{Element: 2, Component: 4}, m.Element)
			require.Equal(t, 17, m.Segments[0].Position)
			require.Equal(t, "16", m.Segments[0].SyntaxError.Code)
		},
		"bots_orders_d96a_multi_mixed_eol.edi": func(t *testing.T, d *Document) {
			require.Equal(t, "1-4500094289", d.Messages[0].Summary().Orders.Document.Number)
			require.Equal(t, 4, d.Messages[0].Summary().Orders.Lines)
			require.Equal(t, "SG25/LIN", findSeg(t, d, "LIN", 0).Path())
		},
		"berryworks_ordrsp_d01b_unod_latin2.edi": func(t *testing.T, d *Document) {
			require.Empty(t, d.Messages[0].Structure)
			require.Contains(t, d.Messages[0].DirectoryNote, "segment names from D.24A")
			require.NotNil(t, d.Messages[0].Summary().Ordrsp)
		},
	}
	for _, name := range corpusNames(t) {
		t.Run(name, func(t *testing.T) {
			d := mustParse(t, corpusFile(t, name))
			check, listed := tests[name]
			if !listed {
				require.Empty(t, structureIssues(d), "unexpected structure issues")
				return
			}
			check(t, d)
		})
	}
}

// corpusNames lists the corpus files (skipping the test without them, or
// failing it with B2BX_REQUIRE_SHARED=1).
func corpusNames(t *testing.T) []string {
	t.Helper()
	files := corpusGlob(t)
	if len(files) == 0 {
		testshared.Missing(t, "the corpus", fmt.Errorf("no *.edi in %s", corpusDir))
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	return names
}
