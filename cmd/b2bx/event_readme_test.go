package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEventReadmeExamples runs every `$ b2bx event …` example of the
// manual's events section, docs/events.md (from the repository root, as
// the manual shows them) and checks that each output line shown is in the real
// output, in order. A line ending in "…" is a prefix; a line "…" stands
// for lines left out. The section's `SIG=$(sed …)` and `echo … >` lines
// are done by the test.
func TestEventReadmeExamples(t *testing.T) {
	raw, err := os.ReadFile("../../docs/events.md")
	require.NoError(t, err)
	doc := string(raw)
	start := strings.Index(doc, "## Events: verify, sign, inspect")
	end := strings.Index(doc, "### Events in the app")
	require.True(t, start >= 0 && end > start, "the events section of docs/events.md")
	section := doc[start:end]

	ev := newEventEnv(t)
	t.Chdir("../..")
	vars := map[string]string{}
	files := map[string]string{}
	ran := 0
	for _, block := range fencedBlocks(section) {
		lines := strings.Split(block, "\n")
		for i := 0; i < len(lines); i++ {
			line, ok := strings.CutPrefix(lines[i], "$ ")
			if !ok {
				continue
			}
			var want []string
			for j := i + 1; j < len(lines) && !strings.HasPrefix(lines[j], "$ "); j++ {
				want = append(want, lines[j])
			}
			switch {
			case sedAssign.MatchString(line):
				m := sedAssign.FindStringSubmatch(line)
				hdr, err := os.ReadFile(m[3])
				require.NoError(t, err)
				for _, h := range strings.Split(string(hdr), "\n") {
					if v, ok := strings.CutPrefix(strings.TrimRight(h, "\r"), m[2]); ok {
						vars[m[1]] = v
					}
				}
				require.NotEmpty(t, vars[m[1]], line)
			case echoTo.MatchString(line):
				m := echoTo.FindStringSubmatch(line)
				files[m[2]] = m[1] + "\n"
			case strings.HasPrefix(line, "b2bx event "):
				args, stdin := shellWords(t, strings.TrimPrefix(line, "b2bx "), vars, files)
				_, out, errOut := ev.run(t, stdin, args...)
				requireShown(t, line, out+errOut, want)
				ran++
			default:
				t.Fatalf("docs/events.md example the test cannot run: %s", line)
			}
		}
	}
	require.GreaterOrEqual(t, ran, 4, "the section's examples")
}

var (
	sedAssign = regexp.MustCompile(`^(\w+)=\$\(sed -n 's/\^([^/]+)//p' (\S+)\)$`)
	echoTo    = regexp.MustCompile(`^echo (\S+) > (\S+)$`)
)

// fencedBlocks returns the bodies of the ``` blocks of s.
func fencedBlocks(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return out
		}
		s = s[i+3:]
		s = s[strings.Index(s, "\n")+1:]
		j := strings.Index(s, "```")
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j+3:]
	}
}

// shellWords splits a command line as a shell would for the manual's
// examples: '…' and "…" quoting, $NAME inside double quotes, "< FILE".
func shellWords(t *testing.T, line string, vars, files map[string]string) (args []string, stdin string) {
	t.Helper()
	var cur strings.Builder
	inWord, redirect := false, false
	flush := func() {
		if !inWord {
			return
		}
		if redirect {
			content, ok := files[cur.String()]
			require.True(t, ok, "no file %s written before: %s", cur.String(), line)
			stdin, redirect = content, false
		} else {
			args = append(args, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ':
			flush()
		case '<':
			flush()
			redirect = true
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			require.GreaterOrEqual(t, j, 0, line)
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			j := strings.IndexByte(line[i+1:], '"')
			require.GreaterOrEqual(t, j, 0, line)
			cur.WriteString(regexp.MustCompile(`\$\w+`).ReplaceAllStringFunc(line[i+1:i+1+j], func(v string) string {
				val, ok := vars[v[1:]]
				require.True(t, ok, "%s is not set: %s", v, line)
				return val
			}))
			i += j + 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return args, stdin
}

// requireShown checks that every line of want is in got, in order.
func requireShown(t *testing.T, cmd, got string, want []string) {
	t.Helper()
	lines := strings.Split(got, "\n")
	at := 0
	for _, w := range want {
		if strings.TrimSpace(w) == "…" || w == "" {
			continue
		}
		prefix, cut := strings.CutSuffix(w, "…")
		found := false
		for ; at < len(lines); at++ {
			if lines[at] == w || cut && strings.HasPrefix(lines[at], prefix) {
				found = true
				at++
				break
			}
		}
		require.True(t, found, "docs/events.md shows a line the output of %q does not have (in this order):\n%s\n\noutput:\n%s", cmd, w, got)
	}
}
