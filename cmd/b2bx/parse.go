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
	in, err := openParseInput(e, pos[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	// The Document and everything read from it reference the input, a
	// mapping for large files: they must not outlive this function.
	defer in.close()
	doc, err := edi.Parse(in.data)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx parse: %s: %s\n", termsafe.String(in.name), termsafe.String(err.Error()))
		return exitUsage
	}
	list := segmentList{on: *withSegs || *describe, describe: *describe}
	if list.on {
		debug.SetGCPercent(gc)
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	// The output reads segment values from the input: a file shortened
	// meanwhile is an error, not a crash (edi.Guard).
	err = edi.Guard(in.data, func() error {
		if *asJSON {
			if err := writeParseJSON(w, in.name, doc, list); err != nil {
				return err
			}
		} else {
			writeParseHuman(w, in.name, doc, list)
		}
		return w.Flush()
	})
	if errors.Is(err, edi.ErrFileChanged) {
		fmt.Fprintf(e.stderr, "b2bx parse: %s: %s\n", termsafe.String(in.name), termsafe.String(err.Error()))
		return exitUsage
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

// parseInput is what parse reads: a file (edi.OpenFile: mapped when
// large, else read) or standard input.
type parseInput struct {
	name string
	data []byte
	file *edi.File // nil for standard input
}

// close releases a file's mapping. Unmapping read-only memory cannot
// lose data, so its error (there is none in practice) is not reported.
func (in parseInput) close() {
	if in.file != nil {
		_ = in.file.Close()
	}
}

// openParseInput opens FILE, or reads standard input for "-".
func openParseInput(e *env, arg string) (parseInput, error) {
	if arg == "-" {
		data, err := io.ReadAll(io.LimitReader(e.stdin, maxStdin+1))
		if err != nil {
			return parseInput{name: "-"}, fmt.Errorf("reading standard input: %w", err)
		}
		return parseInput{name: "(stdin)", data: data}, nil
	}
	f, err := edi.OpenFile(arg)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return parseInput{name: arg}, fmt.Errorf("cannot read %s: %w", arg, err)
	}
	return parseInput{name: arg, data: f.Bytes(), file: f}, nil
}
