package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "parse", summary: "show an EDIFACT file: envelopes, messages with summaries, issues (--json, --segments, --describe)", run: runParse})
}

// segmentList says whether parse lists the segments, and whether with
// their element breakdown.
type segmentList struct{ on, describe bool }

// maxStdin bounds what parse reads from standard input; edi indexes up to
// 4 GiB, files larger than that are refused by edi.Parse itself.
const maxStdin = 1<<32 - 1

func runParse(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "parse", "FILE|-")
	asJSON := fs.Bool("json", false, "print one JSON document instead of the human summary")
	withSegs := fs.Bool("segments", false, "also list every segment (index, offset, number in message, tag, group path, name, data)")
	describe := fs.Bool("describe", false, "with every segment, its elements and components: position, id, name, value and code names (implies --segments)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(e.stderr, "b2bx parse: give exactly one FILE, or - for standard input")
		fs.Usage()
		return exitUsage
	}
	// The input and its index stay live for the whole command: collecting
	// garbage while they are built only costs time (~20% on 16 MiB), and a
	// collection right after would scan them and the directory tables for
	// nothing. The collector comes back before output that allocates per
	// segment (the segment list), else when the command is done.
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)
	name, data, err := readParseInput(e, pos[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	doc, err := edi.Parse(data)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: %s: %s\n", termsafe.String(name), termsafe.String(err.Error()))
		return exitUsage
	}
	list := segmentList{on: *withSegs || *describe, describe: *describe}
	if list.on {
		debug.SetGCPercent(gc)
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	if *asJSON {
		err = writeParseJSON(w, name, doc, list)
	} else {
		writeParseHuman(w, name, doc, list)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: writing the output failed: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if doc.HasErrors() {
		return exitFileError
	}
	return exitOK
}

// readParseInput reads FILE (edi.ReadFile: a plain read, with a huge-page
// hint for large files), or standard input for "-".
func readParseInput(e *env, arg string) (name string, data []byte, err error) {
	if arg == "-" {
		data, err = io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
		if err != nil {
			return "-", nil, fmt.Errorf("reading standard input: %w", err)
		}
		return "(stdin)", data, nil
	}
	data, err = edi.ReadFile(arg)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return arg, nil, fmt.Errorf("cannot read %s: %w", arg, err)
	}
	return arg, data, nil
}
