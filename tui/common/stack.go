package common

import (
	"context"
	"slices"

	tea "github.com/charmbracelet/bubbletea"
)

// Stack is a pile of screens, the top one shown and given the keys: the
// root model has one (help, log, events, :view, the : line and y/N
// prompts), each connection tab another (viewer, diff, uploads, upload).
// It is a value like the models that hold it; every change copies the
// little slice it holds, so a copy of a model never sees another copy's
// screens change.
//
// The stack tags every message its screens' commands make with its
// owner and the screen's id (ScreenMsg), so a result comes back to the
// screen that asked for it, and to nobody once that screen has left.
// Footer notes (Info, ErrorMsg) and messages that already name an owner
// (Owned: Opened, a request to the tab) pass unchanged.
type Stack struct {
	owner TabID
	w, h  int
	items []stacked
	seq   uint64 // screen ids and request ids handed out

	waiting uint64             // the Opened the stack waits for; 0 when none
	what    string             // what is being prepared, for the status bar
	cancel  context.CancelFunc // stops it
}

type stacked struct {
	id uint64
	s  Screen
}

// ScreenMsg is a message made by a command of a screen on a stack,
// addressed to that screen: the root routes it by owner, the stack by
// screen id. A screen that left its stack gets nothing more.
type ScreenMsg struct {
	Tab    TabID
	Screen uint64
	Msg    tea.Msg
}

// Owner implements Owned.
func (m ScreenMsg) Owner() TabID { return m.Tab }

// Initer is a screen with work to start when it is pushed (a directory
// to read, a tick to start).
type Initer interface{ Init() tea.Cmd }

// Finisher is a screen that can end by itself (the : line on enter, a
// y/N prompt once answered, a flow whose last step is done): the stack
// pops it after the Update that finished it.
type Finisher interface{ Done() bool }

// NewStack returns an empty stack for owner's screens.
func NewStack(owner TabID) Stack { return Stack{owner: owner} }

// Len is the number of screens on the stack.
func (s Stack) Len() int { return len(s.items) }

// Top is the screen on top, nil when the stack is empty.
func (s Stack) Top() Screen {
	if len(s.items) == 0 {
		return nil
	}
	return s.items[len(s.items)-1].s
}

// Screens are the screens from the bottom to the top (a copy).
func (s Stack) Screens() []Screen {
	out := make([]Screen, len(s.items))
	for i, it := range s.items {
		out[i] = it.s
	}
	return out
}

// SetSize gives every screen the area the stack draws in.
func (s *Stack) SetSize(w, h int) {
	s.w, s.h = w, h
	if len(s.items) == 0 {
		return
	}
	items := slices.Clone(s.items)
	for i := range items {
		items[i].s = items[i].s.SetSize(w, h)
	}
	s.items = items
}

// Push puts sc on top, sized to the stack, and starts its Init.
func (s *Stack) Push(sc Screen) tea.Cmd {
	s.seq++
	id := s.seq
	sc = sc.SetSize(s.w, s.h)
	s.items = append(s.items[:len(s.items):len(s.items)], stacked{id, sc})
	if in, ok := sc.(Initer); ok {
		return s.wrap(id, in.Init())
	}
	return nil
}

// Pop closes the top screen and takes it off; it returns what the
// screen hands its owner (Result, or Left), nil when the stack was
// empty.
func (s *Stack) Pop() tea.Msg {
	n := len(s.items)
	if n == 0 {
		return nil
	}
	top := s.items[n-1].s
	top.Close()
	s.items = s.items[: n-1 : n-1]
	return result(top)
}

// PopWhile pops the screens on top for which leave is true (a mailbox
// step takes find's screens off); it returns what they hand back, top
// first.
func (s *Stack) PopWhile(leave func(Screen) bool) []tea.Msg {
	var out []tea.Msg
	for top := s.Top(); top != nil && leave(top); top = s.Top() {
		out = append(out, s.Pop())
	}
	return out
}

// Replace puts sc on top like Push; a screen of the same kind on top (a
// second u, :events again) is closed first and what it hands back is
// returned (nil when none was replaced).
func (s *Stack) Replace(sc Screen) (res tea.Msg, cmd tea.Cmd) {
	if sameKind(s.Top(), sc) {
		res = s.Pop()
	}
	return res, s.Push(sc)
}

// CloseAll closes every screen (the owner closes) and stops what is
// being prepared. What they would hand back goes nowhere: the owner is
// leaving too.
func (s *Stack) CloseAll() {
	s.StopPreparing()
	for s.Len() > 0 {
		s.Pop()
	}
}

// Key gives a key to the top screen: the close rule first (Closes →
// pop), then its Update. res is what the stack hands the owner: the
// result of the screen that left (closed by the key or finished by it:
// Result, or Left), else the top screen's Report, else nil.
func (s *Stack) Key(k tea.KeyMsg) (res tea.Msg, cmd tea.Cmd) {
	top := s.Top()
	if top == nil {
		return nil, nil
	}
	if !top.Capturing() && top.Closes(k) {
		return s.Pop(), nil
	}
	return s.update(len(s.items)-1, k)
}

// Update gives msg to the top screen (no close rule); res as for Key.
func (s *Stack) Update(m tea.Msg) (res tea.Msg, cmd tea.Cmd) {
	if len(s.items) == 0 {
		return nil, nil
	}
	return s.update(len(s.items)-1, m)
}

// Deliver gives a screen's own message back to it, wherever it is on the
// stack; a message of a screen that left is dropped. res as for Key.
func (s *Stack) Deliver(m ScreenMsg) (res tea.Msg, cmd tea.Cmd) {
	for i, it := range s.items {
		if it.id == m.Screen {
			return s.update(i, m.Msg)
		}
	}
	return nil, nil
}

func (s *Stack) update(i int, m tea.Msg) (tea.Msg, tea.Cmd) {
	it := s.items[i]
	ns, cmd := it.s.Update(m)
	cmd = s.wrap(it.id, cmd)
	items := slices.Clone(s.items)
	items[i].s = ns
	if f, ok := ns.(Finisher); ok && f.Done() {
		ns.Close()
		s.items = slices.Delete(items, i, i+1)
		return result(ns), cmd
	}
	s.items = items
	return report(ns), cmd
}

// Listener is a screen that takes its owner's news while it is on the
// stack, anywhere on it (new links for the uploads screen).
type Listener interface {
	Notice(msg tea.Msg) Screen
}

// Notify gives msg to every screen of the stack that is a Listener. News
// never closes a screen.
func (s *Stack) Notify(m tea.Msg) {
	if len(s.items) == 0 {
		return
	}
	items := slices.Clone(s.items)
	for i := range items {
		if l, ok := items[i].s.(Listener); ok {
			items[i].s = l.Notice(m)
		}
	}
	s.items = items
}

// Pending is why a screen of the stack must not be left now (an upload
// on its way: closing would leave the outcome unknown), "" when none.
func (s Stack) Pending() string {
	for _, it := range s.items {
		if p, ok := it.s.(pender); ok && p.Pending() != "" {
			return p.Pending()
		}
	}
	return ""
}

// Busy is the status words of the first screen with work running that
// says so (the upload screen sending), "" when none.
func (s Stack) Busy() string {
	for _, it := range s.items {
		if b, ok := it.s.(buser); ok && b.Busy() != "" {
			return b.Busy()
		}
	}
	return ""
}

// Prepare starts waiting for a screen prepared in the background (a file
// to open, a diff): what was being prepared before is stopped, its
// Opened will be dropped. The command that prepares it returns
// Opened{Tab: owner, Req: req, ...} and stops when ctx is done.
func (s *Stack) Prepare(parent context.Context, what string) (req uint64, ctx context.Context) {
	s.StopPreparing()
	s.seq++
	ctx, cancel := context.WithCancel(parent)
	s.waiting, s.what, s.cancel = s.seq, what, cancel
	return s.seq, ctx
}

// StopPreparing stops what is being prepared (esc, the owner closing)
// and says what it was ("" when nothing was).
func (s *Stack) StopPreparing() string {
	what := s.what
	if s.cancel != nil {
		s.cancel()
	}
	s.waiting, s.what, s.cancel = 0, "", nil
	return what
}

// Preparing is what is being prepared ("opening the viewer"), or "".
func (s Stack) Preparing() string { return s.what }

// Open takes an Opened routed to the stack's owner. One that answers a
// request the stack no longer waits for is closed unseen (the staleness
// check, the same for every screen); a failed one returns its error for
// the owner to show; else the screen is pushed.
func (s *Stack) Open(o Opened) (tea.Cmd, error) {
	if o.Req != 0 {
		if o.Req != s.waiting {
			o.Drop()
			return nil, nil
		}
		s.StopPreparing()
	}
	if o.Err != nil {
		o.Drop()
		return nil, o.Err
	}
	if o.Screen == nil {
		return nil, nil
	}
	return s.Push(o.Screen), nil
}

// wrap tags the messages cmd makes with the stack's owner and screen id.
func (s Stack) wrap(id uint64, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	owner := s.owner
	return func() tea.Msg { return tag(owner, id, cmd()) }
}

func tag(owner TabID, id uint64, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case nil, Info, ErrorMsg, Owned, tea.QuitMsg, Copy:
		return msg
	case Exec:
		if done := m.Done; done != nil {
			m.Done = func(err error) tea.Msg { return tag(owner, id, done(err)) }
		}
		return m
	case tea.BatchMsg:
		out := make(tea.BatchMsg, 0, len(m))
		for _, c := range m {
			if c != nil {
				c := c
				out = append(out, func() tea.Msg { return tag(owner, id, c()) })
			}
		}
		return out
	}
	return ScreenMsg{Tab: owner, Screen: id, Msg: msg}
}
