package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/viewer"
)

func init() {
	register(&command{name: "view", summary: "browse an EDIFACT file in the terminal: envelope, verdict, summary, segments, issues, search, raw bytes", run: runView})
}

// runViewer runs the viewer program until the user quits or ctx ends;
// tests replace it (they have no terminal). Signals are notifyInterrupt's
// alone (see tui.Run for why Bubble Tea's handler is off).
var runViewer = func(ctx context.Context, in io.Reader, out io.Writer, src *viewer.Source) error {
	m := viewer.NewStandalone(common.New(), src, viewer.Options{})
	_, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithInput(in), tea.WithOutput(out)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}

func runView(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "view", "FILE")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(e.stderr, "b2bx view: give exactly one FILE")
		fs.Usage()
		return exitUsage
	}
	if !isTerminal(e.stdin) || !isTerminal(e.stdout) {
		fmt.Fprintf(e.stderr, "b2bx view: needs a terminal on stdin and stdout; without one, list the segments with: b2bx parse %s --segments\n",
			termsafe.String(pos[0]))
		return exitUsage
	}
	src, err := openView(ctx, pos[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx view: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	// The viewer owns the file (a mapping for large ones) until here.
	defer src.Close()
	release := holdTerminal(e.stdin, e.stdout)
	err = runViewer(ctx, e.stdin, e.stdout, src)
	release()
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx view: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if errors.Is(src.Err(), edi.ErrFileChanged) {
		fmt.Fprintf(e.stderr, "b2bx view: %s: %s\n", src.Name(), termsafe.String(src.Err().Error()))
		return exitUsage
	}
	return exitOK
}

// openView parses FILE with the collector paused: the index is kept for
// the whole session anyway, and collecting while it is built only costs
// time (as in b2bx parse).
func openView(ctx context.Context, path string) (*viewer.Source, error) {
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)
	return viewer.OpenContext(ctx, path)
}
