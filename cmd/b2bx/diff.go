package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/orderdiff"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "diff", summary: "what an ORDRSP changed against the ORDERS it answers, per line (--json, --all); exit 1 when it changed something", run: runDiff})
}

// exitChanged is diff's exit code when the response differs from the
// order, like diff(1).
const exitChanged = 1

// diffJSON is the --json document.
type diffJSON struct {
	Orders  string            `json:"orders"` // the file names as given
	Ordrsp  string            `json:"ordrsp"`
	Changed bool              `json:"changed"`
	Diffs   []*orderdiff.Diff `json:"diffs"`
}

func runDiff(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "diff", "ORDERS ORDRSP")
	asJSON := fs.Bool("json", false, "print one JSON document instead of the text")
	all := fs.Bool("all", false, "list unchanged lines too")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 2 || (pos[0] == "-" && pos[1] == "-") {
		fmt.Fprintln(e.stderr, "b2bx diff: give the ORDERS that was sent and the partner's ORDRSP (one of them may be - for standard input)")
		fs.Usage()
		return exitUsage
	}
	var docs [2]*edi.Document
	var ins [2]parseInput
	for k, arg := range pos {
		in, err := openInput(ctx, e, arg, edi.DefaultMaxInput)
		if err != nil && ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "b2bx diff: interrupted while reading %s: nothing was compared\n", termsafe.String(arg))
			return exitInterrupted
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "b2bx diff: %s\n", termsafe.String(err.Error()))
			return exitUsage
		}
		defer in.close()
		doc, err := edi.ParseContext(ctx, in.data, edi.Options{})
		if err != nil {
			fmt.Fprintf(e.stderr, "b2bx diff: %s: %s\n", termsafe.String(in.name), termsafe.String(err.Error()))
			return exitUsage
		}
		docs[k], ins[k] = doc, in
	}
	// Reading values from a mapped file that another program shortens
	// meanwhile is an error, not a crash. The diffs hold copies.
	var diffs []*orderdiff.Diff
	err = edi.Guard(ins[0].data, func() error {
		return edi.Guard(ins[1].data, func() (err error) {
			diffs, err = orderdiff.Documents(docs[0], docs[1])
			return err
		})
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx diff: %s\n", termsafe.String(diffError(err, ins[0].name, ins[1].name)))
		return exitUsage
	}
	changed := false
	for _, d := range diffs {
		changed = changed || d.HasChanges()
	}
	w := bufio.NewWriter(e.stdout)
	if *asJSON {
		err = writeJSON(w, diffJSON{Orders: ins[0].name, Ordrsp: ins[1].name, Changed: changed, Diffs: diffs})
	} else {
		writeDiffText(w, diffs, *all)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx diff: writing the output failed: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if changed {
		return exitChanged
	}
	return exitOK
}

// diffError says which file a pairing error is about.
func diffError(err error, orders, ordrsp string) string {
	switch {
	case errors.Is(err, orderdiff.ErrNotOrders):
		return orders + ": " + err.Error()
	case errors.Is(err, orderdiff.ErrNotOrdrsp):
		return ordrsp + ": " + err.Error()
	}
	return err.Error()
}

// writeDiffText prints each diff's headline and rows (already sanitised),
// a blank line between diffs.
func writeDiffText(w *bufio.Writer, diffs []*orderdiff.Diff, all bool) {
	for k, d := range diffs {
		if k > 0 {
			w.WriteString("\n")
		}
		w.WriteString(d.Headline() + "\n")
		for _, row := range d.Rows(all) {
			w.WriteString("  " + row + "\n")
		}
	}
}
