package orders

import (
	"path/filepath"
	"testing"

	"github.com/nutrab2b/b2bx/edi/editest"

	"github.com/nutrab2b/b2bx/edi"
)

// The rejected ORDERS of the README's story and a CONTRL that rejects
// it (the pin package's fixture).
var (
	rejectable    = filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi")
	rejectsCONTRL = filepath.Join("..", "..", "edi", "pin", "testdata", "contrl_rejects_42.edi")
)

// parseFile reads and parses path (editest.ParseFile).
func parseFile(t *testing.T, path string) *edi.Document { return editest.ParseFile(t, path) }
