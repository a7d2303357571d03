// Package cmddoc holds what each b2bx command says about itself beyond its
// flags: the synopsis, examples and exit codes. `b2bx CMD -h`, `b2bx help
// CMD` and docs/commands.md are all written from it, so the help a person
// reads in the terminal and the manual cannot disagree.
package cmddoc

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Doc is one command's documentation.
type Doc struct {
	// Name is the command as typed after b2bx: "fetch", "conn add".
	Name string
	// Synopsis are the command's forms, one a line, without "b2bx ".
	Synopsis []string
	// About is a short paragraph said after the synopsis (optional).
	About string
	// Examples are command lines that work as written, each with what it
	// shows.
	Examples []Example
	// Exits are the codes the command returns, in ascending order.
	Exits []Exit
	// Topic is the docs/ file that tells the whole story ("fetch.md").
	Topic string
}

// Example is one command line and what it does.
type Example struct {
	Cmd  string // without the leading "b2bx "
	What string
}

// Exit is one exit code and when the command returns it.
type Exit struct {
	Code int
	When string
}

// Lookup returns the doc of the command name.
func Lookup(name string) (Doc, bool) {
	for _, d := range docs {
		if d.Name == name {
			return d, true
		}
	}
	return Doc{}, false
}

// All returns every doc, sorted by name.
func All() []Doc {
	out := append([]Doc(nil), docs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WriteHead writes what comes before the flags: the synopsis and the
// paragraph. Nothing when d has neither.
func WriteHead(w io.Writer, d Doc) {
	if len(d.Synopsis) > 0 {
		fmt.Fprintln(w, "synopsis:")
		for _, s := range d.Synopsis {
			if strings.HasPrefix(s, "(") { // a note on the forms above
				fmt.Fprintf(w, "  %s\n", s)
				continue
			}
			fmt.Fprintf(w, "  b2bx %s\n", s)
		}
		fmt.Fprintln(w)
	}
	if d.About != "" {
		fmt.Fprintln(w, strings.TrimSpace(d.About))
		fmt.Fprintln(w)
	}
}

// WriteTail writes what comes after the flags: examples, exit codes and
// where the manual says more.
func WriteTail(w io.Writer, d Doc) {
	if len(d.Examples) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "examples:")
		for i, e := range d.Examples {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if e.What != "" {
				fmt.Fprintf(w, "  # %s\n", e.What)
			}
			fmt.Fprintf(w, "  %s\n", strings.TrimSpace("b2bx "+e.Cmd))
		}
	}
	if len(d.Exits) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "exit codes:")
		for _, e := range d.Exits {
			fmt.Fprintf(w, "  %-3d  %s\n", e.Code, e.When)
		}
		if d.Exits[len(d.Exits)-1].Code != Interrupted {
			fmt.Fprintf(w, "  %-3d  %s\n", Interrupted, "a second Ctrl-C or SIGTERM: quit at once")
		}
	}
	if d.Topic != "" {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "more: docs/%s\n", d.Topic)
	}
}

// The exit codes every command shares (cmd/b2bx uses the same numbers).
const (
	OK          = 0
	FileError   = 1
	Usage       = 2
	API         = 3
	Integrity   = 4
	Storage     = 5
	Interrupted = 130
)

// Codes are the shared exit codes with their general meaning, for the
// table in docs/commands.md.
var Codes = []Exit{
	{OK, "ok"},
	{FileError, "`parse`, `pin`, `event verify`, `event inspect`: the input has errors; `diff`: the ORDRSP changed something; `find --overdue`: an upload is overdue or needs action"},
	{Usage, "usage error, unreadable or refused input, a missing secret"},
	{API, "the Partner API answered with an error, or the network failed (the message says what to check)"},
	{Integrity, "a download failed an integrity check; nothing was acknowledged (a download stopped on this side ran no check: 3, or 5 for a local write)"},
	{Storage, "local storage failed: the spool, an `--out` or `-o` target, the profile file, the keyring, the tracking index, or writing the output"},
	{Interrupted, "interrupted: a second Ctrl-C (or SIGTERM) while the first was being handled; `parse`, `diff` and `pin` also on the first, when it cut their input or output short (they say what)"},
}
