package buildinfo

import (
	"runtime"
	"runtime/debug"
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
