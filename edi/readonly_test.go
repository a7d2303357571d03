package edi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocumentHasNoExportedMutators: the app keeps Documents for hours
// and shares them between screens, so nothing outside the package may
// change one after Parse. Every exported method of *Document must be a
// reader: none may be named like a mutator (the audit found AddIssue,
// SetPathID and SortIssues).
func TestDocumentHasNoExportedMutators(t *testing.T) {
	typ := reflect.TypeFor[*Document]()
	require.Positive(t, typ.NumMethod(), "the test looks at the methods")
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		for _, verb := range []string{"Add", "Set", "Sort", "Append", "Remove", "Delete", "Clear", "Reset", "Put", "Mark"} {
			require.False(t, strings.HasPrefix(name, verb), "(*Document).%s looks like a mutator", name)
		}
	}
}
