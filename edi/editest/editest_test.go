package editest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "o.edi")
	if err := os.WriteFile(p, []byte("UNB+UNOA:3+A:14+B:14+250312:1030+R1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'UNT+3+1'UNZ+1+R1'"), 0o600); err != nil {
		t.Fatal(err)
	}
	if doc := ParseFile(t, p); len(doc.Messages) != 1 || doc.Messages[0].Type != "ORDERS" {
		t.Fatalf("parsed %+v", doc.Messages)
	}
}
