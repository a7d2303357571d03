package edi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func issuesWith(d *Document, code Code) []Issue {
	var out []Issue
	for _, is := range d.Issues() {
		if is.Code == code {
			out = append(out, is)
		}
	}
	return out
}

// TestDuplicateReferences: a repeated UNH, UNG or UNB reference is an
// error at the repeat that names the first occurrence (0085 code 26); the
// same message reference in another interchange is not.
func TestDuplicateReferences(t *testing.T) {
	d := mustParse(t, fixture(t, "errors/duplicate_refs.edi"))
	msgs := issuesWith(d, CodeMessageRefDuplicate)
	require.Len(t, msgs, 1, "UNH+7 in the second interchange is its first")
	require.Equal(t, 9, msgs[0].Segment)
	require.Equal(t, SyntaxDuplicate, msgs[0].SyntaxError)
	require.Equal(t, SeverityError, msgs[0].Severity)
	require.Contains(t, msgs[0].Message, `message reference "7" (UNH 0062) is used again in this interchange: the message at segment 2 has it already`)
	require.Contains(t, msgs[0].Message, "0085 code 26")

	groups := issuesWith(d, CodeGroupRefDuplicate)
	require.Len(t, groups, 1)
	require.Equal(t, 8, groups[0].Segment)
	require.Contains(t, groups[0].Message, `group reference "G1" (UNG 0048) is used again in this interchange: the group at segment 1 has it already`)

	ics := issuesWith(d, CodeInterchangeRefDuplicate)
	require.Len(t, ics, 1)
	require.Equal(t, 16, ics[0].Segment)
	require.Contains(t, ics[0].Message, `interchange control reference "DUP1" (UNB 0020) from "SENDER" to "RECEIVER" is used again: the interchange at segment 0 has it already`)

	// Three of a kind: both repeats name the first.
	d = mustParse(t, []byte("UNB+UNOA:3+A+B+250312:1030+R'UNH+1+X:D:96A:UN'UNT+2+1'UNH+1+X:D:96A:UN'UNT+2+1'UNH+1+X:D:96A:UN'UNT+2+1'UNZ+3+R'"))
	msgs = issuesWith(d, CodeMessageRefDuplicate)
	require.Len(t, msgs, 2)
	for _, is := range msgs {
		require.Contains(t, is.Message, "the message at segment 1 has it already")
	}
	// Three interchanges with one control reference: both repeats name
	// the first (the run's start, found in one pass).
	ic := "UNB+UNOA:3+A+B+250312:1030+R'UNH+1+X:D:96A:UN'UNT+2+1'UNZ+1+R'"
	d = mustParse(t, []byte(ic+ic+ic))
	ics = issuesWith(d, CodeInterchangeRefDuplicate)
	require.Len(t, ics, 2)
	for _, is := range ics {
		require.Contains(t, is.Message, "the interchange at segment 0 has it already")
	}
	// Different recipients may reuse a control reference.
	d = mustParse(t, []byte("UNB+UNOA:3+A+B+250312:1030+R'UNH+1+X:D:96A:UN'UNT+2+1'UNZ+1+R'UNB+UNOA:3+A+C+250312:1030+R'UNH+1+X:D:96A:UN'UNT+2+1'UNZ+1+R'"))
	require.Empty(t, issuesWith(d, CodeInterchangeRefDuplicate))
}
