//go:build tools

// Package deps pins module versions the project uses before every package
// that imports them exists. It is never built.
package deps

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/charmbracelet/bubbles/table"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/charmbracelet/x/exp/teatest"
	_ "github.com/stretchr/testify/require"
	_ "github.com/zalando/go-keyring"
	_ "golang.org/x/term"
	_ "golang.org/x/time/rate"
)
