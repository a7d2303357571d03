// Package settings reads the user's own key bindings and colours
// (config.toml in the config directory, beside profiles.toml) and keeps
// what the app remembers between runs (the open tabs, each tab's page
// size and filter). It knows nothing of screens: the caller passes the
// actions there are and their default keys, and gets back the bindings
// or errors that name the file, the line and the conflict. It imports no
// UI package.
//
// config.toml:
//
//	[keys]
//	process = "P"             # one key
//	quit = ["q", "ctrl+c"]    # or several
//
//	[theme]
//	accent = "#5f87ff"        # #rgb, #rrggbb, or an ANSI colour 0-255
//	error = "9"
//
//	[store]                   # the team store (docs/team-store.md)
//	url = "postgres://b2bx@db.example.com/b2bx?sslmode=verify-full"
//	user = "alice"            # who the team's records name; default the OS user
//
// NO_COLOR wins over [theme]: when it is set (to anything), Theme.Colors
// is empty and the app draws without colour.
package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/nutrab2b/b2bx/internal/human"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// FileName is the configuration file's name in the config directory.
const FileName = "config.toml"

// Path is config.toml in the directory of the profile file (profilesPath,
// as credentials.ConfigPath gives it).
func Path(profilesPath string) string { return filepath.Join(filepath.Dir(profilesPath), FileName) }

// Action is one thing a key can do.
type Action struct {
	Name string // as written in [keys], e.g. "process"
	// Scope says where the key works: actions of the same scope, and an
	// action of scope "global" with any other, may not share a key.
	Scope string
	Keys  []string // the default keys
	Help  string
}

// Config is the loaded configuration.
type Config struct {
	Path string
	// Keys are the bound keys of every action (defaults where the file
	// binds none), by action name.
	Keys  map[string][]string
	Theme Theme
	// Store is the [store] section: the team store (see Store).
	Store Store
}

// Theme is the colours by slot name ("accent", "error", ...), as
// written. Empty under NO_COLOR.
type Theme struct {
	Colors map[string]string
}

// Error is one problem of the file, at a line (0 when it has none).
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", termsafe.String(e.Path), e.Line, e.Msg)
	}
	return termsafe.String(e.Path) + ": " + e.Msg
}

// Errors are all the problems found; Error joins them, one a line.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// file is what config.toml may hold.
type file struct {
	Keys  map[string]any    `toml:"keys"`
	Theme map[string]string `toml:"theme"`
	Store Store             `toml:"store"`
}

// Load reads the file at path and checks it against actions (nil: the
// key names and the theme are checked, not which actions exist) and the
// theme slots (nil: any slot). A missing file is the defaults. getenv
// reads NO_COLOR. The error is Errors, naming the file, the line and,
// for a conflict, both actions.
func Load(path string, actions []Action, slots []string, getenv func(string) string) (*Config, error) {
	cfg := &Config{Path: path, Keys: map[string][]string{}, Theme: Theme{Colors: map[string]string{}}}
	for _, a := range actions {
		cfg.Keys[a.Name] = append([]string(nil), a.Keys...)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, Errors{{Path: path, Msg: "cannot be read: " + err.Error()}}
	}
	var f file
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, Errors{{Path: path, Line: pe.Position.Line, Msg: "not valid TOML: " + pe.Message}}
		}
		return nil, Errors{{Path: path, Msg: "not valid here: " + err.Error()}}
	}
	lines := keyLines(string(b))
	var errs Errors
	bad := func(key string, format string, args ...any) {
		errs = append(errs, &Error{Path: path, Line: lines[key], Msg: fmt.Sprintf(format, args...)})
	}
	for _, k := range md.Undecoded() {
		switch {
		case len(k) == 1:
			bad(k[0], "unknown section or setting %q: the file has [keys], [theme] and [store]", shown(k.String()))
		case k[0] == "store":
			bad(k.String(), "unknown setting %q in [store]: it has url and user", shown(k.String()))
		}
	}
	if msg := f.Store.problem(); msg != "" {
		bad("store.url", "%s", msg)
	}
	cfg.Store = f.Store
	known := map[string]*Action{}
	for i := range actions {
		known[actions[i].Name] = &actions[i]
	}
	names := sortedKeys(f.Keys)
	for _, name := range names {
		keys, ok := keyList(f.Keys[name])
		if !ok {
			bad("keys."+name, "%s: give a key as a string (\"P\") or a list of strings ([\"q\", \"ctrl+c\"])", shown(name))
			continue
		}
		if actions != nil && known[name] == nil {
			bad("keys."+name, "unknown action %q; the actions are: %s", shown(name), actionNames(actions))
			continue
		}
		valid := true
		for _, k := range keys {
			err := ValidKey(k)
			if err == nil {
				err = notFixed(name, k)
			}
			if err != nil {
				bad("keys."+name, "%s: %v", shown(name), err)
				valid = false
			}
		}
		if valid {
			cfg.Keys[name] = keys
		}
	}
	errs = append(errs, conflicts(path, lines, actions, cfg.Keys, f.Keys)...)
	slotOK := map[string]bool{}
	for _, s := range slots {
		slotOK[s] = true
	}
	for _, slot := range sortedKeys(f.Theme) {
		c := f.Theme[slot]
		switch {
		case slots != nil && !slotOK[slot]:
			bad("theme."+slot, "unknown colour %q; the colours are: %s", shown(slot), strings.Join(slots, ", "))
		case !validColor(c):
			bad("theme."+slot, "%s = %q is no colour: give #rgb, #rrggbb or an ANSI colour number 0-255", shown(slot), shown(c))
		default:
			cfg.Theme.Colors[slot] = c
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, errs
	}
	if getenv != nil && getenv("NO_COLOR") != "" {
		cfg.Theme.Colors = map[string]string{}
	}
	return cfg, nil
}

// conflicts reports keys bound to two actions that can meet: the same
// scope, or one of them global. Two defaults are never reported (they
// are the program's business); a conflict is reported on the line of the
// binding that made it.
func conflicts(path string, lines map[string]int, actions []Action, bound map[string][]string, written map[string]any) Errors {
	var errs Errors
	type owner struct{ action, scope string }
	seen := map[string][]owner{} // key → actions holding it so far
	for _, a := range sortedActions(actions, written) {
		_, mine := written[a.Name]
		for _, k := range bound[a.Name] {
			for _, o := range seen[k] {
				if o.action == a.Name || (o.scope != a.Scope && o.scope != "global" && a.Scope != "global") {
					continue
				}
				_, theirs := written[o.action]
				if !mine && !theirs {
					continue
				}
				how := "its default key"
				if theirs {
					how = fmt.Sprintf("bound on line %d", lines["keys."+o.action])
				}
				errs = append(errs, &Error{Path: path, Line: lines["keys."+a.Name], Msg: fmt.Sprintf(
					"key %q of %s (%s) is already %s's (%s, %s): bind one of them to another key",
					termsafe.String(k), a.Name, a.Scope, o.action, o.scope, how)})
			}
			seen[k] = append(seen[k], owner{a.Name, a.Scope})
		}
	}
	return errs
}

// sortedActions puts the actions the file does not bind first, so each
// conflict is found at the binding the file wrote.
func sortedActions(actions []Action, written map[string]any) []Action {
	out := append([]Action(nil), actions...)
	sort.SliceStable(out, func(i, j int) bool {
		_, wi := written[out[i].Name]
		_, wj := written[out[j].Name]
		return !wi && wj
	})
	return out
}

func actionNames(actions []Action) string {
	n := make([]string, len(actions))
	for i, a := range actions {
		n[i] = a.Name
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keyList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, len(out) > 0
	}
	return nil, false
}

// fixedKeys are the keys config.toml cannot move: ctrl+c quits at once
// (binding quit to it as well changes nothing, so quit may name it) and
// 1-9 go to a tab. The y/N answers of a prompt are read by the prompt,
// not through [keys], so y stays free for an action (copy).
var fixedKeys = map[string]struct{ meaning, allowed string }{
	"ctrl+c": {"quits at once", "quit"},
	"1":      {"goes to tab 1", ""}, "2": {"goes to tab 2", ""}, "3": {"goes to tab 3", ""},
	"4": {"goes to tab 4", ""}, "5": {"goes to tab 5", ""}, "6": {"goes to tab 6", ""},
	"7": {"goes to tab 7", ""}, "8": {"goes to tab 8", ""}, "9": {"goes to tab 9", ""},
}

// notFixed refuses a fixed key for an action it does not already mean.
func notFixed(action, k string) error {
	f, ok := fixedKeys[k]
	if !ok || f.allowed == action {
		return nil
	}
	return fmt.Errorf("%q is fixed (it %s) and cannot be bound: choose another key", k, f.meaning)
}

var namedKeys = map[string]bool{
	"enter": true, "esc": true, "tab": true, "shift+tab": true, "space": true, "backspace": true, "delete": true,
	"up": true, "down": true, "left": true, "right": true, "home": true, "end": true, "pgup": true, "pgdown": true,
}

// ValidKey checks a key as written in [keys]: one visible character
// ("P", "?", "/"; not a space, a control, a combining mark, or an
// invisible format character such as a bidi override U+202E or a zero
// width space), a named key (enter, esc, tab, shift+tab, space,
// backspace, delete, up, down, left, right, home, end, pgup, pgdown,
// f1-f12), or ctrl+ or alt+ and a letter or digit.
func ValidKey(k string) error {
	switch {
	case namedKeys[k]:
		return nil
	case utf8.RuneCountInString(k) == 1:
		r, _ := utf8.DecodeRuneInString(k)
		if r != utf8.RuneError && unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.IsMark(r) && !termsafe.Dangerous(r) {
			return nil
		}
	case strings.HasPrefix(k, "f"):
		if n, err := strconv.Atoi(k[1:]); err == nil && n >= 1 && n <= 12 {
			return nil
		}
	case strings.HasPrefix(k, "ctrl+") || strings.HasPrefix(k, "alt+"):
		rest := k[strings.Index(k, "+")+1:]
		if len(rest) == 1 && (rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= '0' && rest[0] <= '9') {
			return nil
		}
	}
	return fmt.Errorf("%q is no key b2bx knows: give one character (\"P\"), a named key (enter, esc, tab, space, up, pgdown, f1 ...) or ctrl+/alt+ and a letter", termsafe.String(k))
}

// shownMax bounds a value of the file an error quotes: a hostile or
// mistaken value of megabytes is shown by its start, not whole.
const shownMax = 64

// shown is a value of the file as an error quotes it: terminal-safe and
// at most shownMax bytes.
func shown(v string) string { return human.Clip(termsafe.String(v), shownMax) }

var colorRe = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

func validColor(c string) bool {
	if colorRe.MatchString(c) {
		return true
	}
	n, err := strconv.Atoi(c)
	return err == nil && n >= 0 && n <= 255 && strconv.Itoa(n) == c
}

// keyLines finds the line of every "section.key" the file sets (and of
// each section header under its name), for error messages; TOML the
// decoder accepted is read line by line.
func keyLines(s string) map[string]int {
	out := map[string]int{}
	section := ""
	for i, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]"):
			section = strings.Trim(strings.TrimSpace(strings.Trim(t, "[]")), `"'`)
			if _, ok := out[section]; !ok {
				out[section] = i + 1
			}
		case strings.Contains(t, "=") && !strings.HasPrefix(t, "#"):
			k := strings.Trim(strings.TrimSpace(t[:strings.Index(t, "=")]), `"'`)
			full := k
			if section != "" {
				full = section + "." + k
			}
			if _, ok := out[full]; !ok {
				out[full] = i + 1
			}
		}
	}
	return out
}

// Help lists the actions of scope (all scopes for "") with the keys
// bound to them, in the order given, for the help screen: "p        process:
// claim, download, verify, store, acknowledge" shows what the user's
// config.toml made of the defaults.
func (c *Config) Help(actions []Action, scope string) []string {
	var out []string
	for _, a := range actions {
		if scope != "" && a.Scope != scope {
			continue
		}
		keys := c.Keys[a.Name]
		if keys == nil {
			keys = a.Keys
		}
		line := fmt.Sprintf("%-10s %s", strings.Join(keys, ", "), a.Name)
		if a.Help != "" {
			line += ": " + a.Help
		}
		out = append(out, line)
	}
	return out
}
