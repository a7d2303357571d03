//go:build unix

package orders

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// What the editor leaves at the work copy's name is read only when it is
// a regular file of its own: a symlink (to /etc/passwd, or to another
// valid ORDERS that would be offered for sending), a FIFO, a directory or
// a hard link to another file is refused without reading it; a file an
// editor saved by writing a new one and renaming it over the name is
// reviewed.
func TestReviewFixReadsOnlyTheWorkCopyItself(t *testing.T) {
	st, rec := rejectedStore(t, rejectsCONTRL)
	l := linked(t, st)
	rejected, _ := os.ReadFile(rejectable)
	path, err := NewWorkCopy(WorkDir(st, resendConn), rec, rejected)
	if err != nil {
		t.Fatal(err)
	}
	// A valid fix elsewhere: what a link would smuggle in.
	other := filepath.Join(t.TempDir(), "other.edi")
	if err := os.WriteFile(other, rejected, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", filepath.Join("..", "..", "testdata", "fix-rejectable.sh"), other).CombinedOutput(); err != nil {
		t.Fatalf("fix script: %v %s", err, out)
	}
	fixed, _ := os.ReadFile(other)
	put := func(t *testing.T, how string) {
		t.Helper()
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		var err error
		switch how {
		case "symlink to a valid fix":
			err = os.Symlink(other, path)
		case "symlink to /etc/passwd":
			err = os.Symlink("/etc/passwd", path)
		case "hard link to another file":
			err = os.Link(other, path)
		case "fifo":
			err = syscall.Mkfifo(path, 0o600)
		case "directory":
			err = os.Mkdir(path, 0o700)
		case "saved by rename":
			tmp := path + ".swp"
			if err = os.WriteFile(tmp, fixed, 0o600); err == nil {
				err = os.Rename(tmp, path)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, how := range []string{"symlink to a valid fix", "symlink to /etc/passwd", "hard link to another file", "fifo", "directory"} {
		t.Run(how, func(t *testing.T) {
			put(t, how)
			r, err := ReviewFix(t.Context(), st, l, rec, rejected, path, nil, Options{})
			if !errors.Is(err, ErrNotWorkCopy) || r != nil {
				t.Fatalf("review = %+v, %v; want ErrNotWorkCopy", r, err)
			}
			if strings.Contains(err.Error(), "root:") || !strings.Contains(err.Error(), "nothing can be sent") {
				t.Fatalf("error %q", err)
			}
		})
	}
	put(t, "saved by rename")
	r, err := ReviewFix(t.Context(), st, l, rec, rejected, path, nil, Options{})
	if err != nil || r.Preflight.Blocked() || r.Refused != nil || r.Plan == nil {
		t.Fatalf("a file saved by rename: %+v, %v", r, err)
	}
	// The link's target was neither read as the fix nor changed.
	if b, _ := os.ReadFile(other); string(b) != string(fixed) {
		t.Fatal("the other file changed")
	}
}
