package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/settings"
)

// appSettings checks config.toml before the app starts (a bad file is
// an error naming the file and the line, and the app does not start)
// and, with --fresh, forgets the saved app state so the app starts
// clean.
func appSettings(e *env, fresh bool) int {
	if profiles, err := credentials.ConfigPath(e.getenv); err == nil {
		if _, err := settings.Load(settings.Path(profiles), nil, nil, e.getenv); err != nil {
			fmt.Fprintf(e.stderr, "b2bx: config.toml has problems; fix them or move the file away (the app did not start):\n%s\n", termsafe.String(err.Error()))
			return exitUsage
		}
	}
	if !fresh {
		return exitOK
	}
	path, err := settings.StatePath(e.getenv)
	if err != nil {
		fmt.Fprintf(e.stderr, "b2bx: --fresh: %s\n", termsafe.String(err.Error()))
		return exitUsage
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(e.stderr, "b2bx: --fresh: the saved app state %s cannot be removed: %s\n", termsafe.String(path), termsafe.String(err.Error()))
		return exitUsage
	}
	return exitOK
}
