// Command b2bx is the support engineer's tool for the B2B exchange Partner
// API: parse and inspect EDIFACT, browse and fetch a connection's mailbox,
// upload ORDERS, manage connection profiles, and run the simulator.
//
// main only parses flags and wires packages together; the work happens in
// edi, apiclient and their sub-packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// Exit codes shared by every subcommand.
const (
	exitOK        = 0
	exitFileError = 1 // parse: the file has error-severity issues
	exitUsage     = 2 // bad flags or arguments, unreadable input
	exitAPI       = 3 // the Partner API answered with an error
	exitIntegrity = 4 // a download failed an integrity check; nothing acknowledged
	exitStorage   = 5 // the local durable store failed
)

// env is what a subcommand may touch of the outside world; tests replace it.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand. run returns the process exit code.
type command struct {
	name    string // e.g. "parse" or "mailbox ls"
	summary string // one line for the usage text
	run     func(ctx context.Context, e *env, args []string) int
}

var commands = map[string]*command{}

// register adds a subcommand; each subcommand file calls it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() { os.Exit(realMain(os.Args[1:])) }

// realMain runs one command with the process's stdio and environment.
func realMain(args []string) int {
	ctx, stop := notifyInterrupt(context.Background(), os.Stderr, hardExit)
	defer stop()
	return run(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, args)
}

// hardExit ends the process at once (a second signal): the terminal of a
// running app is restored first (holdTerminal).
func hardExit(code int) {
	runHardExitHooks()
	os.Exit(code)
}

// exitInterrupted is the exit code of a second Ctrl-C (128 + SIGINT).
const exitInterrupted = 130

// notifyInterrupt returns a context that the first SIGINT or SIGTERM
// cancels, so the command stops cleanly (nothing acknowledged, staged
// files removed). A second signal exits at once with 130: the way out of
// a step that does not honour the context. stop ends the watch.
//
// It is the process's one owner of SIGINT and SIGTERM: the full-screen
// programs (the app, view) run without Bubble Tea's own handler, which
// raced this one and could hang the app on a single SIGTERM (its
// handler blocked sending a quit to an event loop that had already
// ended on the cancelled context).
func notifyInterrupt(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		// Said before cancelling: a command that then stops at once and
		// exits must not end before the line is out.
		fmt.Fprintln(stderr, "b2bx: interrupted: stopping; press Ctrl-C again to quit at once")
		cancel()
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "b2bx: interrupted again: quitting now")
			exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// run dispatches to the longest matching command name ("conn add" before
// "conn").
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		return runApp(ctx, e, nil) // the app in a terminal, else the usage
	}
	if args[0] == "help" && len(args) > 1 {
		return runHelp(e, args[1:])
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stderr)
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, e, args[1:])
	}
	for n := min(len(args), 2); n >= 1; n-- {
		if c, ok := commands[strings.Join(args[:n], " ")]; ok {
			return c.run(ctx, e, args[n:])
		}
	}
	fmt.Fprintf(e.stderr, "b2bx: unknown command %q\n\n", strings.Join(args[:min(len(args), 2)], " "))
	usage(e.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: b2bx <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-18s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'b2bx help <command>' or 'b2bx <command> -h' for its synopsis, flags, examples and exit codes;")
	fmt.Fprintln(w, "the manual is docs/ (docs/commands.md lists every command).")
}

// parseFlags parses args with fs, allowing flags after positional arguments
// ("b2bx parse FILE --json"). A lone "-" is a positional argument (stdin);
// "--" ends flag parsing. It returns the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				helpTail(fs) // after the flags the usage printed
			}
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlagSet makes a FlagSet that reports errors instead of exiting.
func newFlagSet(e *env, name, argsUsage string) *flag.FlagSet {
	fs := flag.NewFlagSet("b2bx "+name, flag.ContinueOnError)
	if flagSpy != nil {
		flagSpy(name, argsUsage, fs)
	}
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		helpHead(e.stderr, name, argsUsage)
		fs.PrintDefaults()
	}
	return fs
}

// flagExit maps a parseFlags error to an exit code: -h is success.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}
