package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nutrab2b/b2bx/internal/export"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// State is what the app remembers between runs. It holds names and view
// settings only: never a secret, token or payload.
type State struct {
	Version int        `json:"version"` // StateVersion
	Tabs    []TabState `json:"tabs"`
	Active  int        `json:"active"` // index in Tabs of the focused tab
}

// TabState is one open tab.
type TabState struct {
	Profile  string `json:"profile"`            // the connection profile it shows
	PageSize int    `json:"pageSize,omitempty"` // mailbox page size (1-100); 0: the default
	Filter   string `json:"filter,omitempty"`   // the filter typed in it
}

// StateVersion is the state file's format.
const StateVersion = 1

// StatePath is the state file: $XDG_STATE_HOME/b2bx/state.json, else
// ~/.local/state/b2bx/state.json.
func StatePath(getenv func(string) string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "b2bx", "state.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("no state directory: set $XDG_STATE_HOME or $HOME")
	}
	return filepath.Join(home, ".local", "state", "b2bx", "state.json"), nil
}

// LoadState reads the state at path. fresh (`--fresh`) starts clean: the
// file is not read. A missing file is an empty state; a file b2bx cannot
// use (corrupt, another version) is reported and an empty state returned
// with it, so the app still starts. Bad entries are dropped: a tab
// without a profile, a page size outside 1-100 (kept as 0, the default).
func LoadState(path string, fresh bool) (State, error) {
	empty := State{Version: StateVersion}
	if fresh {
		return empty, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, fmt.Errorf("the saved app state %s cannot be read (%w); starting clean", termsafe.String(path), err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil || st.Version != StateVersion {
		if err == nil {
			err = fmt.Errorf("version %d, this b2bx writes %d", st.Version, StateVersion)
		}
		return empty, fmt.Errorf("the saved app state %s is not usable (%v); starting clean (b2bx --fresh does so without this note)", termsafe.String(path), err)
	}
	out := empty
	for _, t := range st.Tabs {
		if t.Profile == "" {
			continue
		}
		if t.PageSize < 1 || t.PageSize > 100 {
			t.PageSize = 0
		}
		out.Tabs = append(out.Tabs, t)
	}
	if st.Active >= 0 && st.Active < len(out.Tabs) {
		out.Active = st.Active
	}
	return out, nil
}

// SaveState writes st to path atomically (temporary file, fsync,
// rename), creating the directory (0700).
func SaveState(path string, st State) error {
	st.Version = StateVersion
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot save the app state: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return export.WriteFile(path, true, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
