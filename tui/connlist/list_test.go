package connlist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nutrab2b/b2bx/tui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/credentials"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/apiclient/session"
	"github.com/nutrab2b/b2bx/tui/common"
)

const canary = "CANARY-SECRET-connlist-7c1e"

// memSource is a Source in memory that records what Add got.
type memSource struct {
	mu     sync.Mutex
	rows   []Row
	states []Row
	added  []NewConn
	addErr error
}

func (s *memSource) Profiles(context.Context) (Listing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Listing{Path: "/cfg/profiles.toml", Rows: append([]Row{}, s.rows...)}, nil
}

func (s *memSource) States(context.Context) (Listing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Listing{Path: "/cfg/profiles.toml", Rows: append([]Row{}, s.states...)}, nil
}

func (s *memSource) Add(_ context.Context, nc NewConn) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addErr != nil {
		return "", s.addErr
	}
	s.added = append(s.added, nc)
	r := Row{Name: nc.Profile.Name}
	s.rows, s.states = append(s.rows, r), append(s.states, r)
	return "added " + nc.Profile.Name, nil
}

func newList(src Source) Model {
	c := &common.Common{Styles: common.NewStyles(true)}
	return New(context.Background(), c, src, Options{}).SetSize(100, 26)
}

// step runs msg through m and then every Cmd that results, to the end.
func step(t *testing.T, m Model, msg tea.Msg) (Model, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg, queue = queue[0], queue[1:]
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		for _, next := range run(cmd) {
			switch next.(type) {
			case OpenMsg, common.Info:
				out = append(out, next)
			default:
				queue = append(queue, next)
			}
		}
	}
	return m, out
}

// run is every message cmd leads to (commontest.Messages).
var run = commontest.Messages

func keys(t *testing.T, m Model, ks ...tea.KeyMsg) (Model, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	for _, k := range ks {
		var o []tea.Msg
		m, o = step(t, m, k)
		out = append(out, o...)
	}
	return m, out
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	tab   = tea.KeyMsg{Type: tea.KeyTab}
	esc   = tea.KeyMsg{Type: tea.KeyEsc}
	ctrlS = tea.KeyMsg{Type: tea.KeyCtrlS}
)

func TestFirstFrameWaitsForNothing(t *testing.T) {
	m := newList(&memSource{})
	require.Contains(t, m.View(), "Reading the connection profiles")
}

func TestListShowsKeyStatesWhenTheStoreAnswers(t *testing.T) {
	src := &memSource{
		rows: []Row{{Name: "acme-de", URL: "https://api.example.com", ConnectionID: "c-de",
			Keys: []Key{{KeyID: "k-in", Uses: "inbox"}, {KeyID: "k-mb", Uses: "mailbox"}}}},
		states: []Row{{Name: "acme-de", URL: "https://api.example.com", ConnectionID: "c-de",
			Keys: []Key{{KeyID: "k-in", Uses: "inbox", State: session.StateMissing}, {KeyID: "k-mb", Uses: "mailbox", State: session.StateKeyring}}}},
	}
	m := newList(src)
	m, _ = m.Update(run(m.Init())[0])
	v := m.View()
	require.Contains(t, v, "> acme-de  https://api.example.com  connection c-de")
	require.Contains(t, v, "inbox key k-in: · checking…")

	m, _ = step(t, m, run(m.loadStates())[0])
	v = m.View()
	require.Contains(t, v, "inbox key k-in: ✗ missing · mailbox key k-mb: ✓ keyring")

	m.c.Demo = true // b2bx demo's secrets are in memory, not in the keyring
	require.Contains(t, m.View(), "mailbox key k-mb: ✓ in memory (demo)")
}

func TestStaleLoadIsDropped(t *testing.T) {
	src := &memSource{rows: []Row{{Name: "old"}}}
	m := newList(src)
	stale := run(m.Init())[0]
	src.rows = []Row{{Name: "new"}}
	src.states = src.rows
	m, cmd := m.Reload()
	m, _ = step(t, m, run(cmd)[0])
	m, _ = m.Update(stale)
	require.Contains(t, m.View(), "new")
	require.NotContains(t, m.View(), "old")
}

func TestFirstRunScreen(t *testing.T) {
	m := newList(&memSource{})
	m, _ = step(t, m, run(m.Init())[0])
	v := m.View()
	require.Contains(t, v, "No connection profiles yet in /cfg/profiles.toml")
	require.Contains(t, v, "+  add a connection")
	require.Contains(t, v, "b2bx demo")
	_, out := keys(t, m, enter)
	require.Empty(t, out, "enter on an empty list opens nothing")
}

func TestEnterOpensTheSelectedConnection(t *testing.T) {
	src := &memSource{rows: []Row{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	src.states = src.rows
	m := newList(src)
	m, _ = step(t, m, run(m.Init())[0])
	m, out := keys(t, m, runes("j"), runes("j"), runes("j"), runes("k"), enter)
	require.Equal(t, []tea.Msg{OpenMsg{Name: "b"}}, out)
	require.Equal(t, "b", m.Selected())
}

func TestLongListScrollsWithTheCursor(t *testing.T) {
	src := &memSource{}
	for _, n := range strings.Fields("a b c d e f g h i j k l m n o p q r s t u v w x y z") {
		src.rows = append(src.rows, Row{Name: "conn-" + n})
	}
	src.states = src.rows
	m := newList(src).SetSize(100, 10)
	m, _ = step(t, m, run(m.Init())[0])
	require.Contains(t, m.View(), "more below")
	for range 25 {
		m, _ = keys(t, m, runes("j"))
	}
	v := m.View()
	require.Contains(t, v, "> conn-z")
	require.Contains(t, v, "more above")
	require.LessOrEqual(t, len(strings.Split(v, "\n")), 10)
}

func fillForm(t *testing.T, m Model, values ...string) Model {
	t.Helper()
	for i, v := range values {
		if v != "" {
			m, _ = keys(t, m, runes(v))
		}
		if i < len(values)-1 {
			m, _ = keys(t, m, tab)
		}
	}
	return m
}

func TestFormAddsAConnectionWithMaskedSecret(t *testing.T) {
	src := &memSource{}
	m := newList(src)
	m, _ = step(t, m, run(m.Init())[0])
	m, _ = keys(t, m, runes("+"))
	require.True(t, m.Capturing())
	require.Contains(t, m.View(), "Add a connection")

	m = fillForm(t, m, "acme-new", "https://api.example.com", "conn-1", "key-mb", canary)
	v := m.View()
	require.NotContains(t, v, canary, "the secret is masked")
	require.Contains(t, v, strings.Repeat("•", len(canary)))

	m, out := keys(t, m, ctrlS)
	require.False(t, m.Capturing(), "the form closes after saving")
	require.Len(t, src.added, 1)
	nc := src.added[0]
	require.Equal(t, "acme-new", nc.Profile.Name)
	require.Equal(t, "key-mb", nc.Profile.InboxKeyID, "an empty inbox key means the mailbox key uploads too")
	require.Equal(t, canary, nc.Secrets["key-mb"].Reveal())
	require.Len(t, nc.Secrets, 1)
	require.Contains(t, out, common.Info{Text: "added acme-new"})
	require.Contains(t, m.View(), "> acme-new", "the new connection is selected")
	require.Equal(t, Form{}, m.form, "the typed secret is dropped")
}

func TestFormSeparateInboxKeyNeedsItsSecret(t *testing.T) {
	src := &memSource{}
	m := newList(src)
	m, _ = keys(t, m, runes("+"))
	m = fillForm(t, m, "acme", "https://api.example.com", "conn-1", "key-mb", "s1", "key-in")
	m, _ = keys(t, m, ctrlS)
	require.True(t, m.Capturing())
	require.Empty(t, src.added)
	require.Contains(t, m.View(), "the secret of key key-in: it is empty")
	require.Equal(t, fInboxSecret, m.form.focus, "the field at fault gets the focus")

	m, _ = keys(t, m, runes("s2"), ctrlS)
	require.Len(t, src.added, 1)
	require.Equal(t, "s1", src.added[0].Secrets["key-mb"].Reveal())
	require.Equal(t, "s2", src.added[0].Secrets["key-in"].Reveal())
}

func TestFormValidatesLikeConnAdd(t *testing.T) {
	src := &memSource{}
	m := newList(src)
	m, _ = keys(t, m, runes("+"))
	m = fillForm(t, m, "acme", "http://api.example.com", "conn-1", "key-mb", canary)
	m, _ = keys(t, m, ctrlS)
	require.Empty(t, src.added)
	v := m.View()
	require.Contains(t, v, "uses plain http: use https")
	require.Equal(t, fURL, m.form.focus)
	require.Contains(t, v, "✗ Base URL")

	// Fixing the URL keeps everything else, the secret included.
	m, _ = keys(t, m, tea.KeyMsg{Type: tea.KeyCtrlU}, runes("https://api.example.com"), ctrlS)
	require.Len(t, src.added, 1)
	require.Equal(t, canary, src.added[0].Secrets["key-mb"].Reveal())
}

func TestFormSaveFailureLosesNothing(t *testing.T) {
	src := &memSource{addErr: &session.StageError{Stage: session.StageValidate,
		Err: errors.Join(errors.New(`profile "acme" in /cfg/profiles.toml`), session.ErrProfileExists)}}
	m := newList(src)
	m, _ = keys(t, m, runes("+"))
	m = fillForm(t, m, "acme", "https://api.example.com", "conn-1", "key-mb", canary)
	m, _ = keys(t, m, enter, enter, enter, enter)
	require.True(t, m.Capturing())
	require.Contains(t, m.View(), "already exists")
	require.Equal(t, fName, m.form.focus)
	require.Equal(t, canary, m.form.inputs[fMailboxSecret].Value())
	require.NotContains(t, m.View(), canary)

	m, _ = keys(t, m, esc)
	require.False(t, m.Capturing())
}

// TestSessionSource runs the real source on a temp profile file and an
// in-memory secret store: the secret goes to the store only.
func TestSessionSource(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "profiles.toml")
	store := credentials.NewMemoryStore()
	env := session.Env{Getenv: func(k string) string {
		if k == credentials.EnvConfig {
			return cfg
		}
		return ""
	}, Store: store}
	src := SessionSource{Env: env, StoreName: "the demo's memory"}
	l, err := src.Profiles(context.Background())
	require.NoError(t, err)
	require.Empty(t, l.Rows)

	p := credentials.Profile{Name: "acme", URL: "https://api.example.com", ConnectionID: "c1", InboxKeyID: "k-in", MailboxKeyID: "k-mb"}
	text, err := src.Add(context.Background(), NewConn{Profile: p, Secrets: map[string]secret.Value{"k-mb": secret.New(canary)}})
	require.NoError(t, err)
	require.Contains(t, text, "added acme to "+cfg+"; secrets stored in the demo's memory as b2bx/acme/k-mb")

	raw, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NotContains(t, string(raw), canary)

	l, err = src.States(context.Background())
	require.NoError(t, err)
	require.Len(t, l.Rows, 1)
	require.Equal(t, []Key{
		{KeyID: "k-in", Uses: "inbox", State: session.StateMissing, Problem: l.Rows[0].Keys[0].Problem},
		{KeyID: "k-mb", Uses: "mailbox", State: session.StateKeyring},
	}, l.Rows[0].Keys)
	require.NotEmpty(t, l.Rows[0].Keys[0].Problem)

	_, err = src.Add(context.Background(), NewConn{Profile: p, Secrets: map[string]secret.Value{"k-mb": secret.New("other")}})
	require.ErrorIs(t, err, session.ErrProfileExists)
	v, err := store.Get(context.Background(), "acme", "k-mb")
	require.NoError(t, err)
	require.Equal(t, canary, v.Reveal(), "a refused add changes no secret")
}

// TestStartScreenShowsTheDirectory: each connection's row names its
// profile's revision (issue 21 §1): D.25A as written, D.96A by default.
func TestStartScreenShowsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "profiles.toml")
	env := session.Env{Getenv: func(k string) string {
		if k == credentials.EnvConfig {
			return cfg
		}
		return ""
	}, Store: credentials.NewMemoryStore()}
	src := SessionSource{Env: env, StoreName: "the demo's memory"}
	for _, p := range []credentials.Profile{
		{Name: "acme", URL: "https://api.example.com", ConnectionID: "c1", InboxKeyID: "k-in", MailboxKeyID: "k-mb", Directory: "D.25A"},
		{Name: "bolt", URL: "https://api.example.com", ConnectionID: "c2", InboxKeyID: "k-in", MailboxKeyID: "k-mb"},
	} {
		_, err := src.Add(context.Background(), NewConn{Profile: p, Secrets: map[string]secret.Value{"k-mb": secret.New("s"), "k-in": secret.New("s")}})
		require.NoError(t, err)
	}
	m := newList(src)
	m, _ = m.Update(run(m.Init())[0])
	v := m.View()
	require.Contains(t, v, "acme  https://api.example.com  connection c1  D.25A")
	require.Contains(t, v, "bolt  https://api.example.com  connection c2  D.96A")
}
