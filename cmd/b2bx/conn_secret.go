package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
)

// maxSecretLine bounds one line of --secret-stdin: far above any API key
// secret and every keyring's limit, so the keyring's own size check can
// still explain an oversized value.
const maxSecretLine = 128 << 10

// errNoTerminal means a secret was to be prompted for but stdin is no
// terminal.
var errNoTerminal = errors.New("stdin is not a terminal, so b2bx cannot prompt for the secret: pass --secret-stdin and write one line per key (inbox key first), or use --no-secret and export " + envAPIKey)

// promptSecret asks for a secret on the terminal without echo. Tests
// replace it.
var promptSecret = func(e *env, prompt string) (string, error) {
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", errNoTerminal
	}
	fmt.Fprint(e.stderr, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return "", fmt.Errorf("reading the secret from the terminal: %w", err)
	}
	return string(b), nil
}

// secretInput reads the secrets of conn add and conn set-secret: with
// --secret-stdin one line per key from stdin, in the order of the
// profile's keys (inbox first); otherwise a no-echo prompt per key.
type secretInput struct {
	e        *env
	useStdin bool
	br       *bufio.Reader
}

func newSecretInput(e *env, useStdin bool) *secretInput {
	return &secretInput{e: e, useStdin: useStdin}
}

// read returns the secret for one key of profile.
func (s *secretInput) read(profile string, k credentials.KeyRef) (secret.Value, error) {
	what := fmt.Sprintf("API key %s (%s) of profile %s", k.KeyID, useList(k.Uses), profile)
	var raw string
	var err error
	if s.useStdin {
		raw, err = s.line()
		if errors.Is(err, io.EOF) && raw == "" {
			return secret.Value{}, fmt.Errorf("--secret-stdin: no line for the secret of %s: write one line per key, inbox key first", what)
		}
	} else {
		raw, err = promptSecret(s.e, "Secret for "+what+": ")
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return secret.Value{}, err
	}
	v, err := cleanSecret(raw)
	if err != nil {
		return secret.Value{}, fmt.Errorf("secret of %s: %w", what, err)
	}
	return v, nil
}

// line reads one line of stdin without its end-of-line.
func (s *secretInput) line() (string, error) {
	if s.br == nil {
		s.br = bufio.NewReader(s.e.stdin)
	}
	var b strings.Builder
	for {
		chunk, err := s.br.ReadSlice('\n')
		if b.Len()+len(chunk) > maxSecretLine {
			return "", fmt.Errorf("--secret-stdin: a line is longer than %d bytes; that is not an API key secret", maxSecretLine)
		}
		b.Write(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return strings.TrimRight(b.String(), "\r\n"), err
	}
}

// cleanSecret is session.CleanSecret: the app's form checks a pasted
// secret the same way.
func cleanSecret(raw string) (secret.Value, error) { return session.CleanSecret(raw) }

func useList(uses []credentials.Use) string {
	s := make([]string, len(uses))
	for i, u := range uses {
		s[i] = string(u)
	}
	return strings.Join(s, " and ")
}
