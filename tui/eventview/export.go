package eventview

import (
	"errors"
	"fmt"

	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/internal/export"
)

// Exporter implements common.Exporter: `:export PATH` writes the
// findings the inspector shows (the filter applies) as CSV or JSON.
func (m Model) Exporter() func(path string, force bool) (string, error) {
	if m.rep == nil {
		return func(string, bool) (string, error) {
			return "", errors.New("no report yet: open a capture first (:events PATH); nothing was written")
		}
	}
	fs := make([]events.Finding, 0, len(m.visible))
	for _, i := range m.visible {
		if i >= 0 && i < len(m.rep.raw.Findings) {
			fs = append(fs, m.rep.raw.Findings[i])
		}
	}
	t := export.FindingsTable(fs)
	return func(path string, force bool) (string, error) {
		if err := export.WriteTable(path, t, force); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d event findings", len(t.Rows)), nil
	}
}
