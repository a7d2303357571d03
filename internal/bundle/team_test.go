package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/spool"
)

// A delivery this machine did not store is bundled from Colleague's
// bytes once they match the sidecar's SHA-256 and size (the README says
// who fetched it, terminal-safe); bytes that do not match are refused and
// nothing is written; a Colleague without it leaves ErrNotFound.
func TestBundleOfAColleaguesDeliveryChecksItsBytes(t *testing.T) {
	st, err := spool.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("UNB+UNOA:3+A+B+250101:1200+R'UNH+1+APERAK:D:96A:UN'BGM+313+X+27'UNT+3+1'UNZ+1+R'")
	sum := sha256.Sum256(data)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	meta := spool.Meta{ConnectionID: "c1", DeliveryAttemptID: "d-alice", MessageType: "APERAK", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ReceivedAt: at}
	served := data
	colleague := func(_ context.Context, conn, id string) (spool.Meta, []byte, string, bool, error) {
		if conn != "c1" || id != "d-alice" {
			return spool.Meta{}, nil, "", false, nil
		}
		return meta, served, "alice on host-3\x1b[2J", true, nil
	}
	out := t.TempDir()
	res, err := Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "d-alice", OutDir: out, Now: func() time.Time { return at }, Colleague: colleague})
	if err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile(filepath.Join(res.Dir, "README.txt"))
	if !strings.Contains(string(readme), "fetched by alice on host-3^[[2J") || strings.Contains(string(readme), "\x1b") {
		t.Fatalf("README:\n%s", readme)
	}
	ids, _ := os.ReadFile(filepath.Join(res.Dir, "ids.txt"))
	if !strings.Contains(string(ids), "d-alice") {
		t.Fatalf("ids.txt:\n%s", ids)
	}

	served = []byte("UNB+other bytes'")
	dir := t.TempDir()
	if _, err := Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "d-alice", OutDir: dir, Colleague: colleague}); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("mismatching bytes: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("written: %v", ents)
	}
	if _, err := Write(t.Context(), Options{Store: st, ConnectionID: "c1", ID: "d-nobody", OutDir: dir, Colleague: colleague}); err == nil || !strings.Contains(err.Error(), ErrNotFound.Error()) {
		t.Fatalf("unknown: %v", err)
	}
}
