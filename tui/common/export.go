package common

// Exporter is a screen whose current table `:export PATH` writes (the
// uploads, event findings, find results, the viewer's document). The
// returned function writes it to path (CSV or JSON by the extension;
// force: `:export!` overwrites) and says what it wrote; it is called in
// a tea.Cmd, so the screen captures what it shows when asked, in
// Update, and the IO happens outside it.
type Exporter interface {
	Exporter() func(path string, force bool) (string, error)
}

// ExportMsg is `:export PATH` (`:export! PATH`: Force) for the tab Tab:
// the top screen of its stack when it is an Exporter, else its table.
type ExportMsg struct {
	Tab   TabID
	Path  string
	Force bool
}

// Owner implements Owned.
func (m ExportMsg) Owner() TabID { return m.Tab }

// ExporterOf is the export s offers, nil when it offers none (it is no
// Exporter, or an adapted model without one).
func ExporterOf(s Screen) func(path string, force bool) (string, error) {
	if e, ok := s.(Exporter); ok {
		return e.Exporter()
	}
	return nil
}
