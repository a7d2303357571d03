package viewer

// AtRest reports whether esc has nothing to stop or leave in the viewer:
// no search is typed or running and the detail pane is shown. A host
// that lays the viewer over another screen closes it on esc only then.
func (m Model) AtRest() bool {
	return !m.input.Focused() && !m.search.running && m.pane == paneDetail
}
