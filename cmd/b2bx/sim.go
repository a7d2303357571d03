package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/nutrab2b/b2bx/apiclient/partnersim"
)

func init() {
	register(&command{name: "sim", summary: "run the Partner API simulator with demo data (throwaway credentials)", run: runSim})
}

// simConnJSON is one connection on the first --json line. The secret is
// the simulator's own throwaway demo credential, printed on purpose.
type simConnJSON struct {
	Name         string   `json:"name"`
	ConnectionID string   `json:"connectionId"`
	KeyID        string   `json:"keyId"`
	Secret       string   `json:"secret"`
	Scopes       []string `json:"scopes"`
}

// simJSON is the first --json line: exactly baseURL and connections.
type simJSON struct {
	BaseURL     string        `json:"baseURL"`
	Connections []simConnJSON `json:"connections"`
}

type simEntryJSON struct {
	ConnectionID      string `json:"connectionId"`
	DeliveryAttemptID string `json:"deliveryAttemptId"`
	What              string `json:"what"`
}

// simExtraJSON is the second --json line: the separate upload-only and
// mailbox-only keys, the notable entries, and the CA file for --http2.
type simExtraJSON struct {
	ExtraKeys []simConnJSON  `json:"extraKeys"`
	Large     *simEntryJSON  `json:"large,omitempty"`
	LargeAll  []simEntryJSON `json:"largeAll"`
	Faulty    []simEntryJSON `json:"faulty"`
	CAFile    string         `json:"caFile,omitempty"`
	Entries   int            `json:"entries"`
	Bulk      int            `json:"bulk"`
}

const simHelp = `Serves an in-memory Partner API on a loopback address until Ctrl-C
(SIGINT) or SIGTERM. With --seed demo it holds one partner with two
connections (acme-de, acme-at), 128 ORDRSP/CONTRL/APERAK deliveries in
D.96A and D.25A, three faulty ones and a 15 MiB ORDRSP; uploaded ORDERS
are answered with a CONTRL (and an ORDRSP when accepted). --entries N
adds N small deliveries more to acme-de for a large mailbox (also with
--seed empty); they cycle through 64 generated messages, so even 100000
start in a moment.

The credentials printed are throwaway secrets of this simulator run, made
fresh each start; this is the one place b2bx prints a secret, on purpose.
With --json the first stdout line is
  {"baseURL":"...","connections":[{"name","connectionId","keyId","secret","scopes"}]}
and the second lists the upload-only/mailbox-only keys and the large and
faulty entries ({"extraKeys","large","largeAll","faulty","caFile","entries","bulk"}). Requests are logged to stderr (never tokens or payloads).

With --webhook URL and the webhook secret (--secret-stdin or -c PROFILE)
it also sends signed envelope v2 events for what happens in it (uploads
accepted, answers produced, deliveries due, a HEARTBEAT every
--heartbeat), retried on the rules' schedule divided by --retry-scale;
--faults plays a duplicate, an out-of-order pair, a gap, a bad signature,
a stale timestamp, an oversized event and a burst over 100 events/s once
each. Each send is logged to stderr. Receive them with 'b2bx event listen'.
`

func runSim(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "sim", "")
	addr := fs.String("addr", "127.0.0.1:0", "loopback `address` to listen on (port 0: any free port)")
	seed := fs.String("seed", "demo", "initial data: `demo` or empty (connections and keys, no deliveries)")
	http2 := fs.Bool("http2", false, "serve HTTPS with HTTP/2 and a throwaway certificate (see --ca-file)")
	caFile := fs.String("ca-file", "", "with --http2: write the certificate PEM to this `file` (default: a temp file)")
	large := fs.Int("large", 1, "`copies` of the 15 MiB ORDRSP (fresh entries for repeated fetch benchmarks; they share memory)")
	delay := fs.Duration("reply-delay", partnersim.DefaultResponseDelay, "how long after an upload the CONTRL/ORDRSP answers appear")
	asJSON := fs.Bool("json", false, "print the base URL and demo credentials as JSON lines")
	entries := fs.Int("entries", 0, "add `N` small deliveries to acme-de for a large mailbox (e.g. 10000)")
	throttle := fs.String("throttle", "", "limit every payload stream to `RATE` bytes/s, like a slow partner link (e.g. 2MiB, 500KiB, 100000)")
	var wh webhookFlags
	wh.register(fs)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, "usage: b2bx sim [flags]\n\n"+simHelp+"\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	rate, err := parseByteRate(*throttle)
	if err == nil {
		err = checkSimArgs(pos, *addr, *seed, *large)
	}
	if err == nil && (*entries < 0 || *entries > partnersim.MaxBulk) {
		err = fmt.Errorf("--entries must be from 0 to %d, not %d", partnersim.MaxBulk, *entries)
	}
	if err == nil {
		err = wh.check()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx sim: %v\n", err)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	sim := partnersim.New(partnersim.WithLogger(logger), partnersim.WithResponseDelay(*delay), partnersim.WithThrottle(rate))
	opt := partnersim.DemoOptions{LargeCopies: *large, Bulk: *entries}
	if *large == 0 {
		opt.LargeSize = -1
	}
	if *seed == "empty" {
		opt.PerConnection, opt.LargeSize = -1, -1
	}
	demo, err := partnersim.SeedDemo(sim, opt)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx sim: seeding: %v\n", err)
		return exitStorage
	}
	mode := partnersim.HTTP1
	if *http2 {
		mode = partnersim.HTTP2TLS
	}
	srv, err := partnersim.ServeAddr(*addr, sim, mode)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx sim: %v\n", err)
		return exitUsage
	}
	var caPath string
	if *http2 {
		caPath, err = writeCA(*caFile, srv.CACertPEM)
		if err != nil {
			srv.Close()
			fmt.Fprintf(e.stderr, "b2bx sim: %v\n", err)
			return exitStorage
		}
		if *caFile == "" {
			defer os.Remove(caPath)
		}
	}
	if *asJSON {
		err = printSimJSON(e.stdout, srv.URL, demo, caPath)
	} else {
		err = printSimHuman(e.stdout, srv.URL, demo, caPath)
	}
	if err != nil {
		srv.Close()
		fmt.Fprintf(e.stderr, "b2bx sim: writing to stdout: %v\n", err)
		return exitUsage
	}
	if wh.url != "" {
		stopFeed, err := wh.start(ctx, e, sim, logger)
		if err != nil {
			srv.Close()
			fmt.Fprintf(e.stderr, "b2bx sim: %s\n", err)
			return exitUsage
		}
		defer stopFeed()
	}
	<-ctx.Done()
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("shutdown cut active requests", "err", err)
	}
	return exitOK
}

// checkSimArgs refuses positional arguments, unknown seeds and any address
// that is not loopback: the simulator prints its secrets and must not be
// reachable from the network.
func checkSimArgs(pos []string, addr, seed string, large int) error {
	if len(pos) > 0 {
		return errors.New("sim takes no arguments; see 'b2bx sim -h'")
	}
	if large < 0 || large > 1000 {
		return fmt.Errorf("--large must be from 0 to 1000, not %d", large)
	}
	if seed != "demo" && seed != "empty" {
		return fmt.Errorf("--seed must be demo or empty, not %q", seed)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %q is not a loopback address; use 127.0.0.1, [::1] or localhost", addr)
	}
	return nil
}

func writeCA(path string, pemBytes []byte) (string, error) {
	if path == "" {
		f, err := os.CreateTemp("", "b2bx-sim-ca-*.pem")
		if err != nil {
			return "", fmt.Errorf("creating the CA file: %w", err)
		}
		path = f.Name()
		_ = f.Close()
	}
	if err := os.WriteFile(path, pemBytes, 0o644); err != nil {
		return "", fmt.Errorf("writing the CA file: %w", err)
	}
	return path, nil
}

func connJSON(c partnersim.DemoConnection, k partnersim.DemoKey) simConnJSON {
	return simConnJSON{Name: c.Name, ConnectionID: c.ConnectionID, KeyID: k.ID, Secret: k.Secret, Scopes: k.Scopes}
}

func printSimJSON(w io.Writer, baseURL string, d *partnersim.Demo, caPath string) error {
	first := simJSON{BaseURL: baseURL, Connections: []simConnJSON{}}
	extra := simExtraJSON{ExtraKeys: []simConnJSON{}, Faulty: []simEntryJSON{}, LargeAll: []simEntryJSON{}, CAFile: caPath, Entries: d.Entries, Bulk: d.Bulk}
	for _, c := range d.Connections {
		first.Connections = append(first.Connections, connJSON(c, c.Key))
		extra.ExtraKeys = append(extra.ExtraKeys, connJSON(c, c.InboxKey), connJSON(c, c.MailboxKey))
	}
	for _, f := range d.Faulty {
		extra.Faulty = append(extra.Faulty, simEntryJSON(f))
	}
	for _, l := range d.LargeAll {
		extra.LargeAll = append(extra.LargeAll, simEntryJSON(l))
	}
	if len(extra.LargeAll) > 0 {
		extra.Large = &extra.LargeAll[0]
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(first); err != nil {
		return err
	}
	return enc.Encode(extra)
}

func printSimHuman(w io.Writer, baseURL string, d *partnersim.Demo, caPath string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Partner API simulator on %s (%d deliveries)\n", baseURL, d.Entries)
	fmt.Fprintf(&b, "Throwaway credentials of this run, printed on purpose (new ones each start):\n\n")
	for _, c := range d.Connections {
		fmt.Fprintf(&b, "%s  connection %s\n", c.Name, c.ConnectionID)
		for _, k := range []struct {
			label string
			key   partnersim.DemoKey
		}{{"all scopes  ", c.Key}, {"upload only ", c.InboxKey}, {"mailbox only", c.MailboxKey}} {
			fmt.Fprintf(&b, "  %s  %s:%s\n", k.label, k.key.ID, k.key.Secret)
		}
	}
	if d.Bulk > 0 && len(d.Connections) > 0 {
		fmt.Fprintf(&b, "\nBulk: %d small deliveries on %s\n", d.Bulk, d.Connections[0].Name)
	}
	for i, l := range d.LargeAll {
		if i == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Large delivery: %s (%s)\n", l.DeliveryAttemptID, l.What)
	}
	for _, f := range d.Faulty {
		fmt.Fprintf(&b, "Faulty delivery: %s (%s)\n", f.DeliveryAttemptID, f.What)
	}
	if len(d.Connections) > 0 {
		c := d.Connections[0]
		fmt.Fprintf(&b, "\nTry:\n")
		if caPath != "" {
			fmt.Fprintf(&b, "  export SSL_CERT_FILE=%s\n", caPath)
		}
		fmt.Fprintf(&b, "  export B2BX_API_KEY=%s:%s\n", c.Key.ID, c.Key.Secret)
		fmt.Fprintf(&b, "  b2bx mailbox ls --url %s --connection %s\n", baseURL, c.ConnectionID)
	}
	fmt.Fprintf(&b, "\nServing until Ctrl-C.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// maxByteRate is the largest --throttle: beyond 1 GiB/s a loopback
// stream is not slowed down in any way one could watch.
const maxByteRate = 1 << 30

// parseByteRate reads a --throttle value: bytes per second as a plain
// number or with a unit (parseByteSize), at most maxByteRate; "" is no
// limit.
func parseByteRate(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := parseByteSize(v)
	if err != nil || n > maxByteRate {
		return 0, fmt.Errorf("--throttle %q: give bytes per second up to 1GiB, e.g. 2MiB, 500KiB or 100000", v)
	}
	return n, nil
}
