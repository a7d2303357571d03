package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

func init() {
	register(&command{name: "event verify", summary: "check a webhook's X-NB2B-Signature over a body (exit 0 valid, 1 invalid)", run: runEventVerify})
	register(&command{name: "event sign", summary: "print the X-NB2B-Signature header for a body (tests and demos)", run: runEventSign})
	register(&command{name: "event inspect", summary: "check captured event deliveries: envelope v2, duplicates, ordering, signatures (--json)", run: runEventInspect})
	register(&command{name: "event set-secret", summary: "store a profile's webhook secret in the OS keyring", run: runEventSetSecret})
}

// webhookKeyID is the keyring key ID of a profile's webhook secret: the
// account is "<profile>/webhook".
const webhookKeyID = credentials.WebhookKeyID

// maxWebhookSecretInput bounds --secret-stdin.
const maxWebhookSecretInput = 64 << 10

// secretFlags are the ways a command gets the webhook secret.
type secretFlags struct {
	stdin   bool
	profile string
	keyIDs  string
}

func (s *secretFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.stdin, "secret-stdin", false, "read the webhook secret from stdin; several lines are several secrets (a rotation)")
	fs.StringVar(&s.profile, "c", "", "read the webhook secret of this profile from the OS keyring (account <profile>/"+webhookKeyID+")")
	fs.StringVar(&s.keyIDs, "key-id", webhookKeyID, "with -c: the keyring key ID(s) of the webhook secret, comma-separated for a rotation")
}

func (s *secretFlags) given() bool { return s.stdin || s.profile != "" }

// load returns the secrets and, on failure, the exit code.
func (s *secretFlags) load(ctx context.Context, e *env) ([]events.Secret, int, error) {
	switch {
	case s.stdin && s.profile != "":
		return nil, exitUsage, errors.New("give either --secret-stdin or -c PROFILE, not both")
	case s.stdin:
		v, err := readSecretLines(e.stdin)
		return v, exitUsage, err
	case s.profile != "":
		return profileWebhookSecrets(ctx, e, s.profile, s.keyIDs)
	}
	return nil, exitUsage, errors.New("give the webhook secret: --secret-stdin (one line) or -c PROFILE (from the OS keyring)")
}

// readSecretLines reads one secret per non-empty line. The errors never
// quote the input.
func readSecretLines(r io.Reader) ([]events.Secret, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxWebhookSecretInput+1))
	if err != nil {
		return nil, fmt.Errorf("--secret-stdin: reading stdin: %w", err)
	}
	if len(raw) > maxWebhookSecretInput {
		return nil, fmt.Errorf("--secret-stdin: more than %d bytes on stdin; write only the secret (one per line)", maxWebhookSecretInput)
	}
	var out []events.Secret
	for i, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := checkSecretText(line); err != nil {
			return nil, fmt.Errorf("--secret-stdin: line %d: %w", i+1, err)
		}
		out = append(out, secret.New(line))
	}
	if len(out) == 0 {
		return nil, errors.New("--secret-stdin: stdin holds no secret; write the webhook secret on one line")
	}
	return out, nil
}

// checkSecretText refuses whitespace and control characters inside a
// secret: always a paste mistake.
func checkSecretText(s string) error {
	for _, r := range s {
		if r <= ' ' || r == 0x7f || !unicode.IsPrint(r) {
			return fmt.Errorf("the secret contains spaces or control characters (%d bytes): paste only the secret", len(s))
		}
	}
	return nil
}

// profileWebhookSecrets reads the webhook secret(s) of a profile from the
// secret store.
func profileWebhookSecrets(ctx context.Context, e *env, name, keyIDs string) ([]events.Secret, int, error) {
	f, err := loadProfiles(e)
	if err != nil {
		return nil, exitUsage, err
	}
	p, err := findProfile(f, name)
	if err != nil {
		return nil, exitUsage, err
	}
	store, err := secretStoreFor(e)
	if err != nil {
		return nil, exitUsage, err
	}
	var out []events.Secret
	for _, id := range strings.Split(keyIDs, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !plainKeyID(id) {
			return nil, exitUsage, errors.New("--key-id: a key ID is letters, digits, '.', '_' and '-' (comma-separated for several)")
		}
		v, err := store.Get(ctx, p.Name, id)
		if errors.Is(err, credentials.ErrNotFound) {
			return nil, exitUsage, fmt.Errorf("no webhook secret stored for profile %s (keyring %s / %s): store it with 'b2bx event set-secret -c %s%s', or pass --secret-stdin",
				p.Name, credentials.Service, credentials.Account(p.Name, id), p.Name, keyIDFlag(id))
		}
		if err != nil {
			return nil, storeExit(err), err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, exitUsage, errors.New("--key-id names no key ID")
	}
	return out, exitOK, nil
}

// plainKeyID accepts 1-64 of [A-Za-z0-9._-]: the ID becomes part of a
// keyring account name.
func plainKeyID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func keyIDFlag(id string) string {
	if id == webhookKeyID {
		return ""
	}
	return " --key-id " + id
}

// parseNow reads --now (Unix seconds); empty means def.
func parseNow(v string, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("--now %q is not Unix seconds (e.g. 1741775460; date +%%s prints the current one)", v)
	}
	return time.Unix(n, 0), nil
}

// readBody reads a body file exactly, or stdin for "-".
func readBody(e *env, path string) ([]byte, error) {
	var r io.Reader = e.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, events.MaxCaptureFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > events.MaxCaptureFile {
		return nil, fmt.Errorf("%s is larger than %d MiB; a webhook body is at most 10 MiB", path, events.MaxCaptureFile>>20)
	}
	return b, nil
}

func runEventVerify(ctx context.Context, e *env, args []string) int {
	const name = "event verify"
	fs := newFlagSet(e, name, "")
	header := fs.String("header", "", "the signature: 'X-NB2B-Signature: t=…,v1=…' or just 't=…,v1=…' (required)")
	bodyPath := fs.String("body", "", "FILE holding the raw request body, byte for byte (required; - for stdin)")
	now := fs.String("now", "", "the receiver's clock in Unix seconds (default: now)")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	var sf secretFlags
	sf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	switch {
	case len(pos) > 0:
		err = fmt.Errorf("unexpected argument %q: the body is given with --body FILE", pos[0])
	case *header == "":
		err = errors.New("--header is required: the X-NB2B-Signature line or its value")
	case *bodyPath == "":
		err = errors.New("--body FILE is required: the raw request body exactly as received")
	case *bodyPath == "-" && sf.stdin:
		err = errors.New("--body - and --secret-stdin both want stdin: put the body in a file")
	}
	if err != nil {
		fs.Usage()
		return fail(e, name, *asJSON, exitUsage, err)
	}
	clock, err := parseNow(*now, time.Now())
	if err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	secrets, code, err := sf.load(ctx, e)
	if err != nil {
		return fail(e, name, *asJSON, code, err)
	}
	body, err := readBody(e, *bodyPath)
	if err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	r, err := events.Verify(*header, body, secrets, clock)
	if err != nil {
		return fail(e, name, *asJSON, exitUsage, err)
	}
	if *asJSON {
		if c := emitJSON(e, name, r); c != exitOK {
			return c
		}
	} else {
		fmt.Fprintf(e.stdout, "%s\n", termsafe.String(r.Explain()))
		if r.Valid || len(r.Signature.V1) > 0 {
			fmt.Fprintf(e.stdout, "  timestamp %s = %s; body %d bytes; %d v1, %d secret(s) tried\n",
				r.Signature.T, time.Unix(r.Signature.Timestamp, 0).UTC().Format(time.RFC3339), len(body), len(r.Signature.V1), r.Secrets)
		}
	}
	if !r.Valid {
		return exitFileError
	}
	return exitOK
}

func runEventSign(_ context.Context, e *env, args []string) int {
	const name = "event sign"
	fs := newFlagSet(e, name, "")
	bodyPath := fs.String("body", "", "FILE holding the raw body to sign (required)")
	ts := fs.String("t", "", "the timestamp in Unix seconds (default: now)")
	valueOnly := fs.Bool("value", false, "print only the header value t=…,v1=…")
	useStdin := fs.Bool("secret-stdin", false, "read the webhook secret from stdin (required; one line)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	switch {
	case len(pos) > 0:
		err = fmt.Errorf("unexpected argument %q: the body is given with --body FILE", pos[0])
	case *bodyPath == "" || *bodyPath == "-":
		err = errors.New("--body FILE is required (stdin carries the secret)")
	case !*useStdin:
		err = errors.New("--secret-stdin is required: write the webhook secret on stdin, never on the command line")
	}
	if err != nil {
		fs.Usage()
		return fail(e, name, false, exitUsage, err)
	}
	t, err := parseNow(*ts, time.Now())
	if err != nil {
		return fail(e, name, false, exitUsage, errors.New(strings.Replace(err.Error(), "--now", "--t", 1)))
	}
	secrets, err := readSecretLines(e.stdin)
	if err == nil && len(secrets) != 1 {
		err = fmt.Errorf("--secret-stdin: %d lines; signing takes exactly one secret", len(secrets))
	}
	if err != nil {
		return fail(e, name, false, exitUsage, err)
	}
	body, err := readBody(e, *bodyPath)
	if err != nil {
		return fail(e, name, false, exitUsage, err)
	}
	v := events.Sign(secrets[0], t.Unix(), body)
	if *valueOnly {
		fmt.Fprintln(e.stdout, v)
	} else {
		fmt.Fprintf(e.stdout, "%s: %s\n", events.SignatureHeader, v)
	}
	return exitOK
}

func runEventSetSecret(ctx context.Context, e *env, args []string) int {
	const name = "event set-secret"
	fs := newFlagSet(e, name, "")
	profile := fs.String("c", "", "the profile whose webhook secret to store (required)")
	keyID := fs.String("key-id", webhookKeyID, "the keyring key ID (e.g. webhook-next while rotating)")
	useStdin := fs.Bool("secret-stdin", false, "read the secret from stdin (default: prompt without echo)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 || *profile == "" || !plainKeyID(*keyID) {
		fs.Usage()
		return fail(e, name, false, exitUsage, errors.New("give -c PROFILE, and as --key-id one plain key ID (letters, digits, '.', '_', '-')"))
	}
	f, err := loadProfiles(e)
	if err == nil {
		_, err = findProfile(f, *profile)
	}
	if err != nil {
		return fail(e, name, false, exitUsage, err)
	}
	var v events.Secret
	if *useStdin {
		var vs []events.Secret
		vs, err = readSecretLines(e.stdin)
		if err == nil && len(vs) != 1 {
			err = fmt.Errorf("--secret-stdin: %d lines; write exactly one secret", len(vs))
		}
		if err == nil {
			v = vs[0]
		}
	} else {
		var raw string
		raw, err = promptSecret(e, "Webhook secret of profile "+*profile+": ")
		if errors.Is(err, errNoTerminal) {
			err = errors.New("stdin is not a terminal, so b2bx cannot prompt: pass --secret-stdin and write the secret on one line")
		}
		if err == nil {
			raw = strings.TrimSpace(raw)
			if err = checkSecretText(raw); err == nil && raw == "" {
				err = errors.New("the secret is empty")
			}
			v = secret.New(raw)
		}
	}
	if err != nil {
		return fail(e, name, false, exitUsage, err)
	}
	store, err := secretStoreFor(e)
	if err == nil {
		err = store.Set(ctx, *profile, *keyID, v)
	}
	if err != nil {
		return fail(e, name, false, storeExit(err), err)
	}
	fmt.Fprintf(e.stdout, "stored the webhook secret of profile %s in the OS keyring (%s / %s)\n",
		*profile, credentials.Service, termsafe.String(credentials.Account(*profile, *keyID)))
	return exitOK
}
