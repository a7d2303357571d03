// Package editest holds test helpers for the packages that read EDIFACT
// (pins, resends, the viewer). Only tests import it.
package editest

import (
	"os"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

// ParseFile reads and parses the interchange at path, failing t when it
// cannot.
func ParseFile(t testing.TB, path string) *edi.Document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := edi.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
