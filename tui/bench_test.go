package tui

import (
	"context"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/session"
)

// BenchmarkFirstFrame is the app's own share of the first frame: build the
// model, Init (hands out the Cmds, runs none), the window size, View. The
// profile file and the keyring are read by the Cmds afterwards.
func BenchmarkFirstFrame(b *testing.B) {
	cfg := writeProfiles(b, 20)
	env := session.Env{Getenv: func(k string) string {
		if k == credentials.EnvConfig {
			return cfg
		}
		return ""
	}, Store: credentials.NewMemoryStore()}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m, err := NewApp(ctx, Options{Env: env, Open: []string{"conn-00", "conn-01"}})
		if err != nil {
			b.Fatal(err)
		}
		_ = m.Init()
		nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
		if len(nm.View()) == 0 {
			b.Fatal("empty frame")
		}
	}
}

// BenchmarkListFrame is a frame of the connection list with 20 profiles
// and their key states loaded (the start screen's redraw on a key).
func BenchmarkListFrame(b *testing.B) {
	cfg := writeProfiles(b, 20)
	env := session.Env{Getenv: func(k string) string {
		if k == credentials.EnvConfig {
			return cfg
		}
		return ""
	}, Store: credentials.NewMemoryStore()}
	m, err := NewApp(context.Background(), Options{Env: env})
	if err != nil {
		b.Fatal(err)
	}
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	m = nm.(Model)
	for _, msg := range collect(m.Init()) {
		nm, cmd := m.Update(msg)
		m = nm.(Model)
		for _, next := range collect(cmd) {
			nm, _ = m.Update(next)
			m = nm.(Model)
		}
	}
	down := tea.KeyMsg{Type: tea.KeyDown}
	b.ReportAllocs()
	for b.Loop() {
		nm, _ := m.Update(down)
		m = nm.(Model)
		_ = m.View()
	}
}
