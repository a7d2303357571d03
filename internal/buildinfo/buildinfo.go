// Package buildinfo says which b2bx is running: the module version, the
// VCS commit it was built from and the Go version, from the build
// information the Go linker embeds (runtime/debug), so `b2bx version`
// needs no flags at build time.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is what `b2bx version` prints.
type Info struct {
	Module    string `json:"module"`             // e.g. github.com/nutrab2b/b2bx
	Version   string `json:"version"`            // module version, "(devel)" for a build from a work tree
	Commit    string `json:"commit,omitempty"`   // vcs.revision
	Time      string `json:"time,omitempty"`     // vcs.time, RFC 3339
	Modified  bool   `json:"modified"`           // vcs.modified: built from a tree with uncommitted changes
	GoVersion string `json:"goVersion"`          // e.g. go1.27.3
	Platform  string `json:"platform,omitempty"` // GOOS/GOARCH
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown (no build information)"}
	}
	return From(bi)
}

// From extracts Info from build information.
func From(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos != "" {
		in.Platform = goos + "/" + goarch
	}
	return in
}

// String is one line: "b2bx v1.2.0 (commit 0123456789ab, 2026-12-01T23:00:00Z,
// modified) go1.27.3 linux/amd64".
func (in Info) String() string {
	var b strings.Builder
	b.WriteString("b2bx ")
	b.WriteString(in.Version)
	var parts []string
	if in.Commit != "" {
		c := in.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		parts = append(parts, "commit "+c)
	}
	if in.Time != "" {
		parts = append(parts, in.Time)
	}
	if in.Modified {
		parts = append(parts, "modified")
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	if in.GoVersion != "" {
		b.WriteString(" " + in.GoVersion)
	}
	if in.Platform != "" {
		b.WriteString(" " + in.Platform)
	}
	return b.String()
}
