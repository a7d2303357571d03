package buildinfo

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFrom(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Path: "github.com/nutrab2b/b2bx", Version: "v1.2.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T23:00:00Z"},
			{Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}}
	in := From(bi)
	if in.Commit != "0123456789abcdef0123" || !in.Modified || in.Platform != "linux/amd64" || in.Module != "github.com/nutrab2b/b2bx" {
		t.Fatalf("%+v", in)
	}
	if got, want := in.String(), "b2bx v1.2.0 (commit 0123456789ab, 2026-12-01T23:00:00Z, modified) go1.27.3 linux/amd64"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	dev := From(&debug.BuildInfo{GoVersion: "go1.27.3"})
	if dev.Version != "(devel)" || dev.String() != "b2bx (devel) go1.27.3" {
		t.Fatalf("devel: %+v %q", dev, dev.String())
	}
}

// A test binary has build information: the running Go version.
func TestRead(t *testing.T) {
	if in := Read(); in.GoVersion != runtime.Version() {
		t.Fatalf("Read = %+v, want Go %s", in, runtime.Version())
	}
}

// The running binary has an ID: its Go build ID, as `go tool buildid`
// prints it, and the same on every call.
func TestIDIsTheGoBuildID(t *testing.T) {
	got := ID()
	if !strings.HasPrefix(got, "go:") || len(got) < 20 {
		t.Fatalf("ID = %q, want the Go build ID", got)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if want := "go:" + strings.TrimSpace(string(out)); got != want {
		t.Fatalf("ID = %q, go tool buildid says %q", got, want)
	}
	if ID() != got {
		t.Fatal("ID changed between calls")
	}
}

func TestBuildIDIn(t *testing.T) {
	for in, want := range map[string]string{
		"ELF\x00junk\xff Go build ID: \"abc/def\"\n \xff": "abc/def",
		"no id here":                       "",
		"\xff Go build ID: \"unterminated": "",
		"\xff Go build ID: \"\"":           "",
		// an ELF note: name size 4, descriptor size 7, type 4, "Go\0\0", the ID
		"\x7fELF..\x04\x00\x00\x00\x07\x00\x00\x00\x04\x00\x00\x00Go\x00\x00abc/def\x00": "abc/def",
		// the same words with another type are not the build ID
		"\x04\x00\x00\x00\x07\x00\x00\x00\x03\x00\x00\x00Go\x00\x00abc/def": "",
	} {
		if got := buildIDIn(strings.NewReader(in)); got != want {
			t.Errorf("buildIDIn(%q) = %q, want %q", in, got, want)
		}
	}
}
