package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/pin"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "pin", summary: "place a CONTRL's or APERAK's errors on the ORDERS segments and elements they name (--json); exit 1 when there are errors", run: runPin})
}

// pinJSON is the --json document of pin.
type pinJSON struct {
	Orders  string      `json:"orders"`
	Answers []string    `json:"answers"`
	Pins    []pinOfJSON `json:"pins"`
}

type pinOfJSON struct {
	Answer string `json:"answer"` // the file it came from
	pin.Pin
	SegmentText string `json:"segmentText,omitempty"` // the ORDERS segment as written, sanitised
}

// runPin is the command-line twin of the viewer's pinned errors: the
// errors of each answer file, on the ORDERS they answer.
func runPin(ctx context.Context, e *env, args []string) int {
	const name = "pin"
	fs := newFlagSet(e, name, "ORDERS ANSWER...")
	asJSON := fs.Bool("json", false, "print one JSON document: {orders, answers, pins: [{answer, source, level, segment, message, position, element, component, code, text, segmentText}]}")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) < 2 {
		fmt.Fprintln(e.stderr, "b2bx pin: give the ORDERS that was sent and one or more CONTRL or APERAK files that answer it")
		fs.Usage()
		return exitUsage
	}
	read := func(arg string) (*edi.Document, parseInput, int) {
		in, err := openInput(ctx, e, arg, edi.DefaultMaxInput)
		if err != nil && ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "b2bx pin: interrupted while reading %s\n", termsafe.String(arg))
			return nil, in, exitInterrupted
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "b2bx pin: %s\n", termsafe.String(err.Error()))
			return nil, in, exitUsage
		}
		doc, err := edi.ParseContext(ctx, in.data, edi.Options{})
		if err != nil {
			in.close()
			fmt.Fprintf(e.stderr, "b2bx pin: %s: %s\n", termsafe.String(in.name), termsafe.String(err.Error()))
			return nil, in, exitUsage
		}
		return doc, in, exitOK
	}
	orders, oin, code := read(pos[0])
	if code != exitOK {
		return code
	}
	defer oin.close()
	out := pinJSON{Orders: oin.name, Answers: []string{}, Pins: []pinOfJSON{}}
	for _, arg := range pos[1:] {
		answer, ain, code := read(arg)
		if code != exitOK {
			return code
		}
		var pins []pin.Pin
		err := edi.Guard(oin.data, func() error {
			return edi.Guard(ain.data, func() (err error) {
				pins, err = pin.Pins(orders, answer)
				for _, p := range pins {
					pj := pinOfJSON{Answer: ain.name, Pin: p}
					if p.Segment >= 0 {
						pj.SegmentText = orders.Segment(p.Segment).Display()
					}
					out.Pins = append(out.Pins, pj)
				}
				return err
			})
		})
		ain.close()
		out.Answers = append(out.Answers, ain.name)
		if errors.Is(err, pin.ErrOtherInterchange) {
			fmt.Fprintf(e.stderr, "b2bx pin: %s: %s\n", termsafe.String(ain.name), termsafe.String(err.Error()))
			return exitUsage
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "b2bx pin: %s: %s\n", termsafe.String(ain.name), termsafe.String(err.Error()))
			return exitUsage
		}
	}
	w := bufio.NewWriter(e.stdout)
	if *asJSON {
		err = writeJSON(w, out)
	} else {
		writePinsText(w, out)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx pin: writing the output failed: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if len(out.Pins) > 0 {
		return exitFileError
	}
	return exitOK
}

func writePinsText(w *bufio.Writer, out pinJSON) {
	if len(out.Pins) == 0 {
		fmt.Fprintf(w, "%s: the answers report no error\n", termsafe.String(out.Orders))
		return
	}
	fmt.Fprintf(w, "%s: %d error(s) reported\n", termsafe.String(out.Orders), len(out.Pins))
	for _, p := range out.Pins {
		where := "the interchange as a whole"
		if p.Segment >= 0 {
			where = fmt.Sprintf("segment index %d  %s", p.Segment, p.SegmentText)
		}
		fmt.Fprintf(w, "  %s\n    %s (%s)\n", where, p.Text, termsafe.String(p.Answer))
	}
}
