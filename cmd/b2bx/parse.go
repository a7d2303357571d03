package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "parse", summary: "show an EDIFACT file: envelopes, messages with summaries, issues (--json, --segments, --describe)", run: runParse})
}

// segmentList says whether parse lists the segments, and whether with
// their element breakdown.
type segmentList struct{ on, describe bool }

// parseHook, when set (tests only), is called as parse enters each stage:
// "open", "parse", "output".
var parseHook func(ctx context.Context, stage string)

func parseStage(ctx context.Context, stage string) {
	if parseHook != nil {
		parseHook(ctx, stage)
	}
}

func runParse(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "parse", "FILE|-")
	asJSON := fs.Bool("json", false, "print one JSON document instead of the human summary")
	withSegs := fs.Bool("segments", false, "also list every segment (index, offset, number in message, tag, group path, name, data)")
	describe := fs.Bool("describe", false, "with every segment, its elements and components: position, id, name, value and code names (implies --segments)")
	migFile := fs.String("mig", "", "also check the ORDERS against the partner's rules in `FILE` (TOML; see b2bx check)")
	maxInput := byteSizeFlag(edi.DefaultMaxInput)
	fs.Var(&maxInput, "max-input", "read at most this much (a number of bytes, or with KiB, MiB or GiB; at most 4GiB); larger input is refused")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(e.stderr, "b2bx parse: give exactly one FILE, or - for standard input")
		fs.Usage()
		return exitUsage
	}
	var rules *mig.Rules
	if *migFile != "" {
		if *asJSON {
			fmt.Fprintln(e.stderr, "b2bx parse: --mig prints its findings with the human summary; for JSON use b2bx check --mig FILE --json")
			return exitUsage
		}
		if rules, err = mig.Load(*migFile); err != nil {
			fmt.Fprintf(e.stderr, "b2bx parse: %s\n", termsafe.String(err.Error()))
			return exitUsage
		}
	}
	parseStage(ctx, "open")
	in, err := openInput(ctx, e, pos[0], int64(maxInput))
	if err != nil {
		if ctx.Err() != nil {
			return parseInterrupted(e, "reading "+in.name, "nothing was parsed")
		}
		var se *edi.SizeError
		if errors.As(err, &se) {
			fmt.Fprintf(e.stderr, "b2bx parse: %s: give --max-input with a larger size to read more (at most 4GiB), or split the input\n", termsafe.String(se.Error()))
			return exitUsage
		}
		fmt.Fprintf(e.stderr, "b2bx parse: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	// The Document and everything read from it reference the input, a
	// mapping for large files: they must not outlive this function.
	defer in.close()
	gc := boundGC(in)
	defer gc.restore()
	parseStage(ctx, "parse")
	doc, err := edi.ParseContext(ctx, in.data, edi.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return parseInterrupted(e, "parsing "+in.name, "nothing was printed")
		}
		fmt.Fprintf(e.stderr, "b2bx parse: %s: %s\n", termsafe.String(in.name), termsafe.String(err.Error()))
		return exitUsage
	}
	list := segmentList{on: *withSegs || *describe, describe: *describe}
	if list.on {
		gc.list()
	}
	parseStage(ctx, "output")
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	// The output reads segment values from the input: a file shortened
	// meanwhile is an error, not a crash (edi.Guard).
	err = edi.Guard(in.data, func() error {
		var err error
		if *asJSON {
			err = writeParseJSON(ctx, w, in.name, doc, list)
		} else {
			err = writeParseHuman(ctx, w, in.name, doc, list)
			if err == nil && rules != nil {
				err = writePartnerRules(w, rules, doc)
			}
		}
		if err != nil {
			return err
		}
		return w.Flush()
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		_ = w.Flush()
		return parseInterrupted(e, "printing "+in.name, "the output is incomplete")
	case errors.Is(err, edi.ErrFileChanged):
		fmt.Fprintf(e.stderr, "b2bx parse: %s: %s\n", termsafe.String(in.name), termsafe.String(err.Error()))
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "b2bx parse: writing the output failed: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if doc.HasErrors() {
		return exitFileError
	}
	return exitOK
}

// parseInterrupted reports a parse stopped by Ctrl-C or SIGTERM while
// doing what, and what that means; the exit code is 130 like a shell's.
func parseInterrupted(e *env, doing, outcome string) int {
	fmt.Fprintf(e.stderr, "b2bx parse: interrupted while %s: %s\n", termsafe.String(doing), outcome)
	return exitInterrupted
}

// outputSlack is the memory the collector lets parse's output take as
// garbage beyond the Document before collecting (see boundGC).
const outputSlack = 16 << 20

// gcBound is the collector's setting for one parse (boundGC).
type gcBound struct {
	percent int   // GOGC before: restored for the output
	limit   int64 // the memory limit before
}

// boundGC sets the collector for parsing in: a memory limit of the Go
// memory the process holds now plus the Document's budget
// (edi.DefaultBudget) plus outputSlack (debug.SetMemoryLimit), and the
// collector off below that (for a segment list it comes back: list). The
// input and its index stay live for the whole command, so collecting
// while they are built only costs time (~20% on 16 MiB), and a real
// interchange never gets near the limit. The Document stays within its budget, so
// the live heap stays below the limit and the collector never runs flat
// out; whatever the input, the process then holds at most about three
// times the input (a mapped file, the budget) plus 64 MiB. Without the
// limit, with the collector off for the whole command, UNB plus 1 MB of
// ' took 527 MB and 100,000 empty messages 195 MB.
func boundGC(in parseInput) *gcBound {
	if (in.file == nil || !in.file.Mapped()) && len(in.data) >= 4<<20 {
		// Read input: the buffers outgrown while reading it are garbage
		// that would count against the limit; free them first.
		debug.FreeOSMemory()
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	held := int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	g := &gcBound{limit: debug.SetMemoryLimit(-1)} // -1 reads it (GOMEMLIMIT, default none)
	debug.SetMemoryLimit(min(held+edi.DefaultBudget(len(in.data))+outputSlack, g.limit))
	g.percent = debug.SetGCPercent(-1)
	return g
}

// list turns the collector back on as it was (GOGC), under the limit,
// for the segment list: it makes garbage per segment, which a small heap
// collected often reuses from the cache, where letting it grow to the
// limit would touch fresh memory (--segments on 16 MiB: ~190 ms against
// ~260 ms).
func (g *gcBound) list() { debug.SetGCPercent(g.percent) }

// restore puts both settings back.
func (g *gcBound) restore() {
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.limit)
}

// parseInput is what parse reads: a file (mapped when large, else read)
// or standard input.
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

// openInput opens FILE, or reads standard input for "-", at most limit
// bytes; a FIFO or pipe is read until its writer closes it. Both stop
// when ctx is done (Ctrl-C), even while waiting for a writer.
func openInput(ctx context.Context, e *env, arg string, limit int64) (parseInput, error) {
	if arg == "-" {
		in := parseInput{name: "(stdin)"}
		data, err := edi.ReadAllContext(ctx, e.stdin, limit)
		var se *edi.SizeError
		if errors.As(err, &se) {
			se.Name = "standard input"
			return in, err
		}
		if err != nil {
			return in, fmt.Errorf("reading standard input: %w", err)
		}
		in.data = data
		return in, nil
	}
	in := parseInput{name: arg}
	f, err := edi.OpenFileContext(ctx, arg, limit)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		var se *edi.SizeError
		if errors.As(err, &se) {
			return in, err
		}
		return in, fmt.Errorf("cannot read %s: %w", arg, err)
	}
	in.data, in.file = f.Bytes(), f
	return in, nil
}

// byteSizeFlag is a flag.Value for a size in bytes: "1048576", "512KiB",
// "16MiB", "1GiB" (also KB/MB/GB, taken as the binary units); at most
// edi.MaxInput (4GiB is taken as that).
type byteSizeFlag int64

func (b *byteSizeFlag) String() string {
	n := int64(*b)
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSizeFlag) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return errors.New("want a positive size such as 16MiB, 2GiB or a number of bytes")
	}
	if n > edi.MaxInput+1 {
		return errors.New("at most 4GiB: larger inputs cannot be parsed")
	}
	*b = byteSizeFlag(min(n, edi.MaxInput))
	return nil
}

// writePartnerRules lists the findings of the partner's rules (--mig),
// each with its rule's file:line.
func writePartnerRules(w io.Writer, rules *mig.Rules, doc *edi.Document) error {
	fs := rules.Check(doc)
	if _, err := fmt.Fprintf(w, "partner rules %s: %d rule(s), %d finding(s)\n", termsafe.String(rules.Path), len(rules.Rules), len(fs)); err != nil {
		return err
	}
	for _, f := range fs {
		if _, err := fmt.Fprintf(w, "  warning %s (segment index %d): %s\n", termsafe.String(f.Where), f.Segment, termsafe.String(f.Text)); err != nil {
			return err
		}
	}
	return nil
}
