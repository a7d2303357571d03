package orders

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nutrab2b/b2bx/edi"
)

// The rejected ORDERS of the README's story and a CONTRL that rejects
// it (the pin package's fixture).
var (
	rejectable    = filepath.Join("..", "..", "testdata", "edifact", "orders_rejectable.edi")
	rejectsCONTRL = filepath.Join("..", "..", "edi", "pin", "testdata", "contrl_rejects_42.edi")
)

func parseFile(t *testing.T, path string) *edi.Document {
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
