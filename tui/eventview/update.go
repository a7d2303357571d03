package eventview

import (
	"path/filepath"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/secret"
	"github.com/nutrab2b/b2bx/internal/termsafe"
	"github.com/nutrab2b/b2bx/tui/common"
)

// Update handles keys and the screen's results; every other message goes
// to the file picker (its directory reads carry the picker's own id).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.req != m.waiting || m.stage != stageLoading {
			return m, nil // stale: an earlier run, or the operator went back
		}
		return m.loaded(msg)
	case secretMsg:
		if msg.req != m.secretReq {
			return m, nil
		}
		return m.gotSecret(msg)
	case liveStartedMsg:
		if msg.req != m.liveReq {
			if msg.live != nil {
				msg.live.stop() // a listener nobody waits for any more
			}
			return m, nil
		}
		return m.liveStarted(msg)
	case liveRecordMsg:
		if msg.req != m.liveReq || m.live == nil {
			return m, nil
		}
		return m.liveRecord(msg)
	case liveRedrawMsg:
		if msg.req != m.liveReq || m.live == nil {
			return m, nil
		}
		return m.liveRedrawn()
	case tea.KeyMsg:
		if keys := common.SplitRunes(msg); keys != nil && m.focus == inNone {
			return common.EachKey(m, keys, Model.Update)
		}
		return m.key(msg)
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(msg)
	return m, cmd
}

func (m Model) key(k tea.KeyMsg) (Model, tea.Cmd) {
	switch m.focus {
	case inPath:
		return m.pathKey(k)
	case inSecret:
		return m.secretKey(k)
	case inFilter:
		return m.filterKey(k)
	}
	switch {
	case key.Matches(k, m.keys.Back):
		return m.back()
	case key.Matches(k, m.keys.Secret):
		m.focus, m.note = inSecret, ""
		m.secretIn.Reset()
		return m, m.secretIn.Focus()
	case key.Matches(k, m.keys.Keyring):
		return m.keyringSecret()
	case key.Matches(k, m.keys.Forget):
		return m.forget()
	case key.Matches(k, m.keys.Listen):
		return m.Listen("")
	}
	switch m.stage {
	case stagePick:
		return m.pickKey(k)
	case stageReport:
		return m.reportKey(k)
	}
	return m, nil
}

// back is esc outside the inputs: clear the filter, leave the picker or
// a run for the report, or close the screen.
func (m Model) back() (Model, tea.Cmd) {
	switch {
	case m.stage == stageReport && m.filter != "":
		m.filter = ""
		m.filterIn.Reset()
		m.refilter()
	case m.stage == stageLoading:
		m.waiting = 0 // its result is dropped when it comes
		m.note = "stopped waiting for " + m.pathName()
		m.stage = stageReport
		if m.rep == nil && m.loadErr == "" {
			return m.toPicker()
		}
		return m.clamp(), nil
	case m.atRest():
		m.done = true
	default: // the picker, opened from a report
		m.stage = stageReport
		return m.clamp(), nil
	}
	return m, nil
}

func (m Model) pickKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.AllFiles):
		m.allFiles = !m.allFiles
		m.picker.AllowedTypes = Extensions
		m.note = "showing captures (.json, .http); a: all files"
		if m.allFiles {
			m.picker.AllowedTypes = nil
			m.note = "showing all files (a: captures only)"
		}
		return m, nil
	case key.Matches(k, m.keys.InspectDir):
		return m.start(m.picker.CurrentDirectory)
	case key.Matches(k, m.keys.TypePath):
		m.focus, m.note = inPath, ""
		m.pathIn.SetValue(m.picker.CurrentDirectory + string(filepath.Separator))
		m.pathIn.CursorEnd()
		return m, m.pathIn.Focus()
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(k)
	if ok, path := m.picker.DidSelectFile(k); ok {
		return m.start(path)
	}
	if ok, path := m.picker.DidSelectDisabledFile(k); ok {
		m.note = termsafe.String(filepath.Base(path)) + " is not a capture (.json, .http): press a to show all files"
	}
	return m, cmd
}

func (m Model) reportKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Open):
		return m.toPicker()
	case key.Matches(k, m.keys.Rerun):
		if m.path == "" || m.live != nil {
			return m, nil
		}
		return m.start(m.path)
	case key.Matches(k, m.keys.Filter):
		if m.rep == nil {
			return m, nil
		}
		m.section, m.focus = secFindings, inFilter
		m.filterIn.SetValue(m.filter)
		m.filterIn.CursorEnd()
		return m, m.filterIn.Focus()
	case key.Matches(k, m.keys.Section):
		m.section = (m.section + 1) % numSections
		m.scroll = 0
	case key.Matches(k, m.keys.PrevSection):
		m.section = (m.section + numSections - 1) % numSections
		m.scroll = 0
	default:
		return m.move(k), nil
	}
	return m.clamp(), nil
}

// move handles the movement keys: the finding cursor, or the scroll
// position of the other views.
func (m Model) move(k tea.KeyMsg) Model {
	pos, page := &m.cursor, max(m.listRows, 1)
	if m.section != secFindings {
		pos, page = &m.scroll, max(m.areaHeight(), 1)
	}
	switch {
	case key.Matches(k, m.keys.Up):
		*pos--
	case key.Matches(k, m.keys.Down):
		*pos++
	case key.Matches(k, m.keys.PageUp):
		*pos -= page
	case key.Matches(k, m.keys.PageDown):
		*pos += page
	case key.Matches(k, m.keys.Top):
		*pos = 0
	case key.Matches(k, m.keys.Bottom):
		*pos = 1 << 30
	}
	return m.clamp()
}

// start reads and checks path (a leading ~/ is the home directory) in
// the background.
func (m Model) start(path string) (Model, tea.Cmd) {
	m.path, m.loadErr, m.note = common.ExpandHome(path), "", ""
	m.stage = stageLoading
	m.waiting = nextReq()
	return m, inspect(m.waiting, m.path, m.secrets)
}

func (m Model) loaded(msg loadedMsg) (Model, tea.Cmd) {
	m.waiting = 0
	m.stage = stageReport
	if msg.parent != "" {
		m.picker.CurrentDirectory = msg.parent // o picks the next capture next to this one
	}
	if msg.err != nil {
		m.rep = nil
		m.loadErr = termsafe.String(msg.err.Error())
		return m.clamp(), nil
	}
	prev := m.rep
	m.rep = newReport(msg.rep)
	m = m.wrapSections()
	if prev == nil || len(prev.findings) != len(m.rep.findings) {
		m.cursor, m.top, m.scroll, m.visible = 0, 0, 0, nil // a new set: start at the top
	}
	m.refilter()
	return m, nil
}

// toPicker shows the file list (re-read, so new captures show).
func (m Model) toPicker() (Model, tea.Cmd) {
	m.stage = stagePick
	return m, m.picker.Init()
}

// keyringSecret reads the active profile's webhook secret.
func (m Model) keyringSecret() (Model, tea.Cmd) {
	switch {
	case m.opts.Profile == "":
		m.note = "no connection tab is active, so there is no profile keyring to read: press s to type the webhook secret"
		return m, nil
	case m.opts.Store == nil:
		m.note = "this session has no secret store: press s to type the webhook secret"
		return m, nil
	}
	m.secretReq = nextReq()
	m.note = "reading the webhook secret of profile " + termsafe.String(m.opts.Profile) + " from the keyring…"
	return m, readSecret(m.ctx, m.secretReq, m.opts.Store, m.opts.Profile)
}

func (m Model) gotSecret(msg secretMsg) (Model, tea.Cmd) {
	m.secretReq = 0
	if msg.err != nil {
		m.note = secretProblem(m.opts.Profile, msg.err)
		if m.wantLive != "" {
			m.note += " (needed to listen)"
		}
		return m, nil
	}
	return m.useSecret(msg.v, "profile "+termsafe.String(m.opts.Profile)+" (keyring)")
}

// useSecret makes v the webhook secret and re-runs the checks with it.
func (m Model) useSecret(v secret.Value, from string) (Model, tea.Cmd) {
	m.secrets, m.secretFrom = []events.Secret{v}, from
	m.note = "webhook secret set (" + from + ")"
	if m.wantLive != "" {
		return m.startListening()
	}
	if m.live != nil {
		m.note += "; the running listener keeps the secret it started with"
		return m, nil
	}
	if m.path != "" && m.stage != stagePick {
		return m.start(m.path)
	}
	return m, nil
}

func (m Model) forget() (Model, tea.Cmd) {
	if m.secrets == nil {
		return m, nil
	}
	m.secrets, m.secretFrom = nil, ""
	m.note = "webhook secret forgotten"
	if m.path != "" && m.stage == stageReport {
		m, cmd := m.start(m.path)
		m.note = "webhook secret forgotten"
		return m, cmd
	}
	return m, nil
}

// pathKey handles the path input: enter inspects, esc cancels.
func (m Model) pathKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		m.focus = inNone
		m.pathIn.Blur()
		return m, nil
	case tea.KeyEnter:
		p := strings.TrimSpace(m.pathIn.Value())
		m.focus = inNone
		m.pathIn.Blur()
		if p == "" {
			m.note = "no path given"
			return m, nil
		}
		return m.start(p)
	}
	var cmd tea.Cmd
	m.pathIn, cmd = m.pathIn.Update(k)
	return m, cmd
}

// secretKey handles the masked secret input. The typed text leaves the
// input as soon as it is accepted or cancelled.
func (m Model) secretKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		m.focus = inNone
		m.secretIn.Reset()
		m.secretIn.Blur()
		m.note = "the webhook secret is unchanged"
		return m, nil
	case tea.KeyEnter:
		v := strings.TrimSpace(m.secretIn.Value())
		m.focus = inNone
		m.secretIn.Reset()
		m.secretIn.Blur()
		if problem := secretTextProblem(v); problem != "" {
			m.note = problem
			return m, nil
		}
		return m.useSecret(secret.New(v), "typed")
	}
	var cmd tea.Cmd
	m.secretIn, cmd = m.secretIn.Update(k)
	return m, cmd
}

// secretTextProblem rejects what is surely a paste mistake; it quotes
// nothing of the text.
func secretTextProblem(v string) string {
	if v == "" {
		return "no secret typed; the webhook secret is unchanged"
	}
	for _, r := range v {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return "the secret contains spaces or control characters: paste only the secret (it is unchanged)"
		}
	}
	return ""
}

// filterKey filters the findings while typing; enter keeps the filter,
// esc removes it.
func (m Model) filterKey(k tea.KeyMsg) (Model, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		m.focus = inNone
		m.filterIn.Reset()
		m.filterIn.Blur()
		m.filter = ""
		m.refilter()
		return m, nil
	case tea.KeyEnter:
		m.focus = inNone
		m.filterIn.Blur()
		return m, nil
	}
	var cmd tea.Cmd
	m.filterIn, cmd = m.filterIn.Update(k)
	if v := m.filterIn.Value(); v != m.filter {
		m.filter = v
		m.refilter()
	}
	return m, cmd
}

// refilter recomputes the visible findings, keeping the selected one
// when it still matches.
func (m *Model) refilter() {
	if m.rep == nil {
		m.visible = nil
		return
	}
	selected := -1
	if m.cursor >= 0 && m.cursor < len(m.visible) {
		selected = m.visible[m.cursor]
	}
	words := strings.Fields(strings.ToLower(m.filter))
	m.visible = m.visible[:0:0]
	m.cursor = 0
	for i, f := range m.rep.findings {
		if matches(f.search, words) {
			if i == selected {
				m.cursor = len(m.visible)
			}
			m.visible = append(m.visible, i)
		}
	}
	*m = m.clamp()
}

// matches reports whether every word occurs in s.
func matches(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
