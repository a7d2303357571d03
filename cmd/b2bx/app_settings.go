package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/internal/settings"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui"
	"github.com/nutrab2b/b2bx/tui/common"
)

// appSettings checks config.toml before the app starts (a bad file is
// an error naming the file and the line, and the app does not start)
// and, with --fresh, forgets the saved app state so the app starts
// clean.
//
// It checks the file against the app's real actions and theme slots
// (tui.Actions, common.ThemeSlots), so a key bound to two actions that
// meet is refused here, and returns what the app applies: the config
// and where the open tabs are remembered ("" when no state directory
// can be found: the app then remembers nothing).
func appSettings(e *env, fresh bool) (*settings.Config, string, int) {
	var cfg *settings.Config
	if profiles, err := credentials.ConfigPath(e.getenv); err == nil {
		c, err := settings.Load(settings.Path(profiles), tui.Actions(), common.ThemeSlots, e.getenv)
		if err != nil {
			fmt.Fprintf(e.stderr, "b2bx: config.toml has problems; fix them or move the file away (the app did not start):\n%s\n", termsafe.String(err.Error()))
			return nil, "", exitUsage
		}
		cfg = c
	}
	path, err := settings.StatePath(e.getenv)
	if err != nil {
		if fresh {
			fmt.Fprintf(e.stderr, "b2bx: --fresh: %s\n", termsafe.String(err.Error()))
			return nil, "", exitUsage
		}
		return cfg, "", exitOK
	}
	if !fresh {
		return cfg, path, exitOK
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(e.stderr, "b2bx: --fresh: the saved app state %s cannot be removed: %s\n", termsafe.String(path), termsafe.String(err.Error()))
		return nil, "", exitUsage
	}
	return cfg, path, exitOK
}
