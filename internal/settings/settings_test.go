package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var actions = []Action{
	{Name: "quit", Scope: "global", Keys: []string{"q", "ctrl+c"}},
	{Name: "help", Scope: "global", Keys: []string{"?"}},
	{Name: "process", Scope: "mailbox", Keys: []string{"P"}},
	{Name: "worker", Scope: "mailbox", Keys: []string{"W"}},
	{Name: "search", Scope: "viewer", Keys: []string{"/"}},
	{Name: "next", Scope: "viewer", Keys: []string{"n"}},
}

var slots = []string{"accent", "error"}

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func noEnv(string) string { return "" }

func TestLoadDefaultsAndRebinds(t *testing.T) {
	cfg, err := Load(filepath.Join(t.TempDir(), "none.toml"), actions, slots, noEnv)
	if err != nil || cfg.Keys["process"][0] != "P" || len(cfg.Keys["quit"]) != 2 {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	p := write(t, "# mine\n[keys]\nprocess = \"p\"\n\"worker\" = [\"w\", \"ctrl+w\"]\nnext = \"P\"\n\n[theme]\naccent = \"#5f87ff\"\nerror = \"9\"\n")
	cfg, err = Load(p, actions, slots, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Keys["process"], ",") != "p" || strings.Join(cfg.Keys["worker"], ",") != "w,ctrl+w" || cfg.Keys["next"][0] != "P" {
		t.Fatalf("keys %+v", cfg.Keys)
	}
	if cfg.Theme.Colors["accent"] != "#5f87ff" || cfg.Theme.Colors["error"] != "9" {
		t.Fatalf("theme %+v", cfg.Theme)
	}
	// NO_COLOR wins.
	cfg, err = Load(p, actions, slots, func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if err != nil || len(cfg.Theme.Colors) != 0 {
		t.Fatalf("NO_COLOR: %+v %v", cfg.Theme, err)
	}
}

func errorsOf(t *testing.T, err error) Errors {
	t.Helper()
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("err = %v, want Errors", err)
	}
	return es
}

func TestLoadReportsFileLineAndConflict(t *testing.T) {
	p := write(t, "[keys]\nprocess = \"q\"\nworker = \"W\"\nsearch = \"n\"\nnosuch = \"x\"\nhelp = \"hyper+x\"\n[theme]\naccent = \"blue-ish\"\nglow = \"#fff\"\n")
	_, err := Load(p, actions, slots, noEnv)
	es := errorsOf(t, err)
	want := []struct {
		line int
		has  []string
	}{
		{2, []string{`key "q" of process (mailbox) is already quit's (global, its default key)`}},
		{4, []string{`key "n" of search (viewer) is already next's (viewer, its default key)`}},
		{5, []string{`unknown action "nosuch"`, "process", "worker"}},
		{6, []string{`"hyper+x" is no key`}},
		{8, []string{`accent = "blue-ish" is no colour`}},
		{9, []string{`unknown colour "glow"`, "accent, error"}},
	}
	if len(es) != len(want) {
		t.Fatalf("%d errors:\n%v", len(es), err)
	}
	for i, w := range want {
		if es[i].Line != w.line || es[i].Path != p {
			t.Errorf("error %d at %s:%d, want line %d: %v", i, es[i].Path, es[i].Line, w.line, es[i])
		}
		for _, s := range w.has {
			if !strings.Contains(es[i].Error(), s) {
				t.Errorf("error %q lacks %q", es[i], s)
			}
		}
		if !strings.HasPrefix(es[i].Error(), p+":") {
			t.Errorf("error %q does not start with the file and line", es[i])
		}
	}
}

func TestConflictBetweenTwoBindings(t *testing.T) {
	p := write(t, "[keys]\nprocess = \"x\"\n\nworker = \"x\"\n")
	es := errorsOf(t, func() error { _, err := Load(p, actions, slots, noEnv); return err }())
	if len(es) != 1 || es[0].Line != 4 || !strings.Contains(es[0].Msg, "already process's (mailbox, bound on line 2)") {
		t.Fatalf("errors: %v", es)
	}
	// Different scopes may share a key; a global key may not.
	if _, err := Load(write(t, "[keys]\nprocess = \"x\"\nsearch = \"x\"\n"), actions, slots, noEnv); err != nil {
		t.Fatalf("mailbox and viewer sharing a key: %v", err)
	}
	if _, err := Load(write(t, "[keys]\nhelp = \"P\"\n"), actions, slots, noEnv); err == nil || !strings.Contains(err.Error(), "process's") {
		t.Fatalf("a global key over a mailbox default: %v", err)
	}
}

func TestLoadSyntaxAndShapeErrors(t *testing.T) {
	es := errorsOf(t, func() error { _, err := Load(write(t, "[keys]\nprocess = \n"), actions, slots, noEnv); return err }())
	if es[0].Line != 2 || !strings.Contains(es[0].Msg, "not valid TOML") {
		t.Fatalf("syntax: %v", es)
	}
	es = errorsOf(t, func() error {
		_, err := Load(write(t, "[keys]\nprocess = 5\n[colours]\nx = 1\n"), actions, slots, noEnv)
		return err
	}())
	if len(es) != 2 || !strings.Contains(es.Error(), "give a key as a string") || !strings.Contains(es.Error(), `unknown section or setting "colours"`) {
		t.Fatalf("shape: %v", es)
	}
	// Without an action list the keys are still checked, not the names.
	if _, err := Load(write(t, "[keys]\nanything = \"ctrl+k\"\n"), nil, nil, noEnv); err != nil {
		t.Fatal(err)
	}
}

func TestValidKey(t *testing.T) {
	for _, k := range []string{"P", "?", "/", "ü", "enter", "shift+tab", "f12", "ctrl+c", "alt+1", "pgdown"} {
		if err := ValidKey(k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	for _, k := range []string{"", " ", "\x1b", "f13", "ctrl+", "ctrl+ab", "PP", "\u0085", "\u202e", "\u200b", "\u00a0", "\u0301", "\u2028", "\xff"} {
		if ValidKey(k) == nil {
			t.Errorf("%q accepted", k)
		}
	}
}

func TestStateRoundTripAndFresh(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "b2bx", "state.json")
	st, err := LoadState(p, false)
	if err != nil || len(st.Tabs) != 0 {
		t.Fatalf("missing file: %+v %v", st, err)
	}
	in := State{Tabs: []TabState{{Profile: "acme-de", PageSize: 25, Filter: "CONTRL"}, {Profile: "acme-at"}}, Active: 1}
	if err := SaveState(p, in); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	st, err = LoadState(p, false)
	if err != nil || len(st.Tabs) != 2 || st.Tabs[0] != in.Tabs[0] || st.Active != 1 {
		t.Fatalf("round trip: %+v %v", st, err)
	}
	if st, err := LoadState(p, true); err != nil || len(st.Tabs) != 0 {
		t.Fatalf("fresh: %+v %v", st, err)
	}
	_ = os.WriteFile(p, []byte(`{"version":1,"tabs":[{"profile":""},{"profile":"x","pageSize":500}],"active":7}`), 0o600)
	st, err = LoadState(p, false)
	if err != nil || len(st.Tabs) != 1 || st.Tabs[0].PageSize != 0 || st.Active != 0 {
		t.Fatalf("cleaned: %+v %v", st, err)
	}
	_ = os.WriteFile(p, []byte(`{"version":2}`), 0o600)
	if st, err := LoadState(p, false); err == nil || len(st.Tabs) != 0 || !strings.Contains(err.Error(), "starting clean") {
		t.Fatalf("other version: %+v %v", st, err)
	}
	if sp, _ := StatePath(func(k string) string { return map[string]string{"HOME": "/h"}[k] }); sp != "/h/.local/state/b2bx/state.json" {
		t.Fatalf("StatePath %s", sp)
	}
	if Path("/c/b2bx/profiles.toml") != "/c/b2bx/config.toml" {
		t.Fatal("Path")
	}
}

func TestHelpShowsBoundKeys(t *testing.T) {
	acts := append([]Action(nil), actions...)
	acts[2].Help = "claim, download, verify, store, acknowledge"
	cfg, err := Load(write(t, "[keys]\nprocess = [\"p\", \"enter\"]\n"), acts, slots, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Help(acts, "mailbox")
	if len(got) != 2 || got[0] != "p, enter   process: claim, download, verify, store, acknowledge" || got[1] != "W          worker" {
		t.Fatalf("help %q", got)
	}
	if len(cfg.Help(acts, "")) != len(acts) {
		t.Fatal("all scopes")
	}
}

// ctrl+c and 1-9 are fixed (docs: "1–9, ctrl+c and the y/N answers are
// fixed"): binding one is refused with the file and line; quit may name
// ctrl+c, which already quits.
func TestFixedKeysRefused(t *testing.T) {
	for _, body := range []string{"[keys]\n\nprocess = \"ctrl+c\"\n", "[keys]\n\nprocess = \"1\"\n", "[keys]\n\nworker = [\"W\", \"9\"]\n", "[keys]\n\nprocess = \"\u202e\"\n"} {
		p := write(t, body)
		_, err := Load(p, actions, slots, noEnv)
		es := errorsOf(t, err)
		if len(es) != 1 || es[0].Line != 3 || !strings.HasPrefix(es[0].Error(), p+":3:") {
			t.Errorf("%q: %v", body, err)
		}
		if strings.Contains(body, "ctrl+c") && !strings.Contains(es[0].Msg, `"ctrl+c" is fixed`) {
			t.Errorf("%q: %v", body, err)
		}
	}
	if _, err := Load(write(t, "[keys]\nquit = [\"q\", \"ctrl+c\"]\nprocess = \"y\"\n"), actions, slots, noEnv); err != nil {
		t.Fatalf("quit on ctrl+c (as documented), process on y: %v", err)
	}
}

// A huge value is quoted by its start: the error stays one readable line.
func TestHugeValuesAreQuotedByTheirStart(t *testing.T) {
	huge := strings.Repeat("#abcdef", 100000)
	p := write(t, "[theme]\naccent = \""+huge+"\"\n[keys]\n\""+strings.Repeat("x", 5000)+"\" = \"p\"\n")
	_, err := Load(p, actions, slots, noEnv)
	if err == nil {
		t.Fatal("a huge colour was taken")
	}
	if msg := err.Error(); len(msg) > 2000 || !strings.Contains(msg, "#abcdef#abc") || !strings.Contains(msg, "…") {
		t.Fatalf("the error quotes %d bytes: %.300s", len(msg), msg)
	}
}
