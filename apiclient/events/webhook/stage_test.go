package webhook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// stagedFiles are the temporary files in dir that hold data (a spare
// is empty).
func stagedFiles(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".tmp") && info.Size() > 0 {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// A delivery's capture is written and fsynced while the committer decides
// it (the decision needs no file, the file no decision), and the file it
// was staged in is the one committed under its name. The sender is
// answered only after that.
func TestCaptureIsStagedWhileTheDeliveryIsDecided(t *testing.T) {
	dir := t.TempDir()
	deciding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	st := &hookState{onGet: func() { once.Do(func() { close(deciding); <-release }) }}
	h := hookedHandler(t, dir, st)
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := ev{seq: 1}.json()
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := signedPost(srv.URL+"/webhook", body)
		if err != nil {
			t.Error(err)
		}
		answered <- resp
	}()
	select {
	case <-deciding:
	case <-time.After(10 * time.Second):
		t.Fatal("the delivery was never decided")
	}
	var staged []string
	for deadline := time.Now().Add(10 * time.Second); len(staged) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			close(release)
			t.Fatal("nothing was staged while the delivery was being decided")
		}
		staged = stagedFiles(dir)
	}
	raw, _ := os.ReadFile(staged[0])
	tmpInfo, err := os.Stat(staged[0])
	if err != nil || !bytes.HasSuffix(raw, body) {
		close(release)
		t.Fatalf("the staged file: %v, %q", err, raw)
	}
	select {
	case <-answered:
		t.Fatal("answered before the delivery was decided and committed")
	default:
	}
	close(release)
	resp := <-answered
	if resp == nil {
		t.FailNow()
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	names, _ := h.Store.Names()
	if len(names) != 1 {
		t.Fatalf("captures %v", names)
	}
	info, err := os.Stat(filepath.Join(dir, names[0]))
	if err != nil || !os.SameFile(info, tmpInfo) {
		t.Fatalf("the capture is not the staged file: %v", err)
	}
	if left := stagedFiles(dir); len(left) != 0 {
		t.Fatalf("staged files left: %v", left)
	}
}

// spareFilesIn are the spares in dir (os.FileInfo by name).
func spareFilesIn(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	out := map[string]os.FileInfo{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".spare-") {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = info
		}
	}
	return out
}

// The file a delivery is captured in was made before it arrived (making
// it is off the path of the answer); Close removes the spares left.
func TestCaptureGoesIntoASpareMadeAhead(t *testing.T) {
	r := newRig(t, "")
	spares := spareFilesIn(t, r.dir)
	if len(spares) != spareFiles {
		t.Fatalf("%d spares after Open, want %d", len(spares), spareFiles)
	}
	st, _, a := r.post(ev{seq: 1}.json(), "", 0)
	if st != http.StatusOK {
		t.Fatalf("status %d %+v", st, a)
	}
	info, err := os.Stat(filepath.Join(r.dir, a.Delivery))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sp := range spares {
		found = found || os.SameFile(info, sp)
	}
	if !found {
		t.Fatal("the capture is not one of the spares made at Open")
	}
	if err := r.h.Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(r.dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("%s left after Close", e.Name())
		}
	}
}

// A delivery whose signature fails takes no spare: no durable write is
// spent on what is refused.
func TestBadSignatureIsNotStaged(t *testing.T) {
	r := newRig(t, "")
	paths := func() []string {
		r.h.Store.mu.Lock()
		defer r.h.Store.mu.Unlock()
		var out []string
		for _, sp := range r.h.Store.spares {
			out = append(out, sp.path)
		}
		return out
	}
	before := paths()
	if st, _, _ := r.post(ev{seq: 1}.json(), "whsec_wrong", 0); st != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", st)
	}
	if after := paths(); !slices.Equal(before, after) {
		t.Fatalf("spares %v, then %v: the refused delivery was staged", before, after)
	}
}
