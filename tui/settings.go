package tui

import (
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"

	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/tui/common"
	"github.com/nutrab2b/b2bx/tui/conntab"
)

// Scopes of the actions config.toml's [keys] may rebind: the shell's
// global keys and a connection tab's.
const (
	ScopeGlobal = "global"
	ScopeTab    = "tab"
)

// fixedKeys are bindings that are not actions of their own: 1-9 pick a
// tab by its digit, ctrl+c always quits, and the y/N and filter keys
// answer a question that is on screen.
var fixedKeys = map[string]bool{"go-tab": true, "force-quit": true, "yes": true, "no": true, "filter-keep": true, "filter-clear": true}

// actionName is a key map field's name in config.toml: PageDown →
// "page-down", Process → "process".
func actionName(field string) string {
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// eachBinding calls each for every key.Binding field of km (a pointer to
// a struct), in declaration order, with the field's name; an embedded key
// set (common.Nav) is walked in place.
func eachBinding(km any, each func(field string, b *key.Binding)) {
	v := reflect.ValueOf(km).Elem()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if sf.Anonymous && f.Kind() == reflect.Struct {
			eachBinding(f.Addr().Interface(), each)
			continue
		}
		if b, ok := f.Addr().Interface().(*key.Binding); ok {
			each(sf.Name, b)
		}
	}
}

// bindings calls each for every binding of km that config.toml may
// change, with its action name.
func bindings(km any, each func(name string, b *key.Binding)) {
	eachBinding(km, func(field string, b *key.Binding) {
		if name := actionName(field); !fixedKeys[name] {
			each(name, b)
		}
	})
}

// Actions are every action a key can be bound to in config.toml, with
// its default keys: the shell's (scope global) and a tab's (scope tab).
func Actions() []settings.Action {
	var out []settings.Action
	add := func(scope string, km any) {
		bindings(km, func(name string, b *key.Binding) {
			keys := slices.Clone(b.Keys())
			for i, k := range keys {
				if k == " " {
					keys[i] = "space" // as config.toml writes it
				}
			}
			out = append(out, settings.Action{Name: name, Scope: scope, Keys: keys, Help: b.Help().Desc})
		})
	}
	g, t := common.DefaultKeyMap(), conntab.DefaultKeyMap()
	add(ScopeGlobal, &g)
	add(ScopeTab, &t)
	return out
}

// rebind applies cfg's keys of scope to the key map km (a pointer), so
// the keys work as bound and the help shows them as bound.
func rebind(km any, cfg *settings.Config) {
	if cfg == nil {
		return
	}
	bindings(km, func(name string, b *key.Binding) {
		keys, ok := cfg.Keys[name]
		if !ok || len(keys) == 0 || slices.Equal(keys, b.Keys()) {
			return
		}
		match := make([]string, len(keys))
		for i, k := range keys {
			match[i] = k
			if k == "space" { // config.toml's name; bubbletea reports the key as " "
				match[i] = " "
			}
		}
		b.SetKeys(match...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
	})
}

// GlobalKeys is the shell's key map as cfg binds it.
func GlobalKeys(cfg *settings.Config) common.KeyMap {
	km := common.DefaultKeyMap()
	rebind(&km, cfg)
	return km
}

// TabKeys is a connection tab's key map as cfg binds it.
func TabKeys(cfg *settings.Config) conntab.KeyMap {
	km := conntab.DefaultKeyMap()
	rebind(&km, cfg)
	return km
}

// tabStater is a tab that says what to remember of it.
type tabStater interface {
	TabState() (pageSize int, filter string)
}

// State is what the app remembers when it ends: the open tabs in order
// (profile names, never a secret), each one's page size and filter, and
// the focused one.
func (m Model) State() settings.State {
	st := settings.State{Version: settings.StateVersion, Tabs: []settings.TabState{}}
	for i, t := range m.tabs {
		ts := settings.TabState{Profile: t.name}
		if s, ok := t.tab.(tabStater); ok {
			ts.PageSize, ts.Filter = s.TabState()
		}
		st.Tabs = append(st.Tabs, ts)
		if i+1 == m.active {
			st.Active = i
		}
	}
	return st
}

// saveState writes State to Options.StatePath (nothing when it is "").
func (m Model) saveState() error {
	if m.statePath == "" {
		return nil
	}
	st := m.State()
	if m.quitState != nil {
		st = *m.quitState
	}
	return settings.SaveState(m.statePath, st)
}
