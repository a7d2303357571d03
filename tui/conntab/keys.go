package conntab

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/nutrab2b/b2bx/tui/common"
)

// KeyMap is the connection tab's keys. The shell's global keys (q, [, ],
// 1-9, :, ?, L, ctrl+c) are not used here.
type KeyMap struct {
	common.Nav

	Next, Prev, Refresh, Bigger, Smaller, Filter, Backlog key.Binding

	Claim, Download, Ack, Process, Enter, Worker, Drop key.Binding

	View, Diff, Answers, Upload key.Binding

	Copy, Bundle, Mark, MarkAll key.Binding

	RetryNow, Cancel key.Binding

	Yes, No key.Binding

	FilterKeep, FilterClear key.Binding // while the filter is typed
}

// DefaultKeyMap is the tab's key map (shown by the shell's `?` help).
func DefaultKeyMap() KeyMap {
	b := common.Bind
	return KeyMap{
		Nav: common.NavKeys(),

		Next:    b([]string{"n"}, "n", "next page"),
		Prev:    b([]string{"p"}, "p", "previous page"),
		Refresh: b([]string{"r"}, "r", "refresh"),
		Bigger:  b([]string{"+", "="}, "+", "larger pages"),
		Smaller: b([]string{"-"}, "-", "smaller pages"),
		Filter:  b([]string{"/"}, "/", "filter"),
		Backlog: b([]string{"A"}, "A", "backlog: all pages"),

		Claim:    b([]string{"c"}, "c", "claim"),
		Download: b([]string{"d"}, "d", "download + verify"),
		Ack:      b([]string{"a"}, "a", "acknowledge"),
		Process:  b([]string{"P"}, "P", "process head"),
		Enter:    b([]string{"enter"}, "enter", "process (head)"),
		Worker:   b([]string{"W"}, "W", "worker mode on/off"),
		Drop:     b([]string{"x"}, "x", "drop claim"),

		View:    b([]string{"v"}, "v", "view stored payload"),
		Diff:    b([]string{"D"}, "D", "ORDRSP vs ORDERS sent"),
		Answers: b([]string{"H"}, "H", "uploads + answers"),
		Upload:  b([]string{"u"}, "u", "upload ORDERS"),

		Copy:    b([]string{"y"}, "y", "copy an ID, hash or path (OSC 52)"),
		Bundle:  b([]string{"T"}, "T", "ticket bundle"),
		Mark:    b([]string{" "}, "space", "mark row"),
		MarkAll: b([]string{"*"}, "*", "mark all filtered"),

		RetryNow: b([]string{"R"}, "R", "retry now"),
		Cancel:   b([]string{"esc"}, "esc", "cancel, give up"),

		Yes: b([]string{"y", "Y"}, "y", "yes"),
		No:  b([]string{"n", "N", "esc", "enter"}, "N", "no"),

		FilterKeep:  b([]string{"enter"}, "enter", "keep filter"),
		FilterClear: b([]string{"esc"}, "esc", "clear filter"),
	}
}

// The keys of the screens over the mailbox: the uploads screen (v, D, r
// ask the tab) and the diff; q and esc are the close rule's.
var (
	answersMoveKey  = key.NewBinding(key.WithKeys("j", "k", "up", "down"), key.WithHelp("j/k", "move"))
	viewKey         = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "view the payload"))
	diffKey         = key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "diff ORDRSP vs ORDERS sent"))
	fixKey          = key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "fix a rejected upload and resend it"))
	bundleKey       = key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "ticket bundle"))
	markKey         = key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark upload"))
	markAllKey      = key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "mark all uploads"))
	replayMarkedKey = key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "replay marked (same keys)"))
	resendMarkedKey = key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "resend marked (new keys)"))
	reloadKey       = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload"))
	allLinesKey     = key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "all lines / changed only"))
	scrollKey       = key.NewBinding(key.WithKeys("j", "k"), key.WithHelp("j/k", "scroll"))
)
