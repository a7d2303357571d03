package viewer

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/nutrab2b/b2bx/edi/mig"
	"github.com/nutrab2b/b2bx/tui/common"
)

// AtRest reports whether esc has nothing to stop or leave in the viewer:
// no search is typed or running and the detail pane is shown. On a stack
// the viewer closes on esc only then.
func (m Model) AtRest() bool {
	return !m.input.Focused() && !m.search.running && m.pane == paneDetail
}

// Closes reports whether k closes the viewer on top of a stack: q, or
// esc once AtRest, while no search input has the keys.
func (m Model) Closes(k tea.KeyMsg) bool {
	return !m.Capturing() && (k.String() == "q" || (k.Type == tea.KeyEsc && m.AtRest()))
}

// Screen is the viewer as a screen of a stack (common.Screen); it owns
// the file until the stack closes it.
func (m Model) Screen() common.Screen { return common.Adapt(m) }

// FromScreen is the viewer a screen shows, if it is one.
func FromScreen(s common.Screen) (Model, bool) { return common.As[Model](s) }

// NewStandalone runs the viewer over src as a program of its own (`b2bx
// view FILE`): q quits, as it closes the viewer in the app.
func NewStandalone(c *common.Common, src *Source, opts Options) common.Standalone {
	return common.NewStandalone(c, New(c, src, opts).Screen(), 60, 16,
		"The viewer needs at least 60x16 characters; enlarge the terminal (q quits).", "? back to the file")
}

// Opened opens path for a viewer (IO: run it in a tea.Cmd) and returns
// the Opened for owner's stack, answering request req; a file that
// cannot be opened comes back as Opened.Err.
func Opened(ctx context.Context, c *common.Common, owner common.TabID, req uint64, path string, opts Options) common.Opened {
	src, err := OpenContext(ctx, path)
	if err != nil {
		return common.Opened{Tab: owner, Req: req, Err: fmt.Errorf("the viewer cannot open it: %w", err)}
	}
	return common.Opened{Tab: owner, Req: req, Screen: New(c, src, opts).Screen()}
}

// OpenedBytes is Opened for bytes that are no file of this machine (a
// delivery only a colleague fetched, from the team store, its SHA-256
// checked): read-only, its header names them and says where they are
// from (from: "from the team store, fetched by alice on host-3";
// sanitised by the viewer).
func OpenedBytes(c *common.Common, owner common.TabID, req uint64, name string, data []byte, from string, opts Options) common.Opened {
	src, err := FromBytes(name, data)
	if err != nil {
		return common.Opened{Tab: owner, Req: req, Err: fmt.Errorf("the viewer cannot open it: %w", err)}
	}
	opts.Title = name + " — " + from
	return common.Opened{Tab: owner, Req: req, Screen: New(c, src, opts).Screen()}
}

// WithConnection is o for a file of the connection whose profile has
// directory and partner rules at migPath ("" for none): its contract
// findings and partner rule findings are pinned. It reads the rules
// file (IO: call it inside the tea.Cmd); rules that cannot be read are
// left out (b2bx check and the upload screen say why).
func (o Options) WithConnection(directory, migPath string) Options {
	o.Directory = directory
	if migPath != "" {
		if rs, err := mig.Load(migPath); err == nil {
			o.Rules = rs
		}
	}
	return o
}
