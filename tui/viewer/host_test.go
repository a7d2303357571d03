package viewer

import "testing"

func TestAtRest(t *testing.T) {
	m := open(t, fixture("contrl_22_rejected.edi"))
	if !m.AtRest() {
		t.Fatal("a fresh viewer is at rest")
	}
	for _, tc := range []struct{ name, key string }{{"issues pane", "i"}, {"raw view", "r"}, {"search typed", "/"}} {
		m2, _ := m.Update(keyMsg(tc.key))
		if m2.AtRest() {
			t.Fatalf("%s: esc still has something to leave", tc.name)
		}
		m2, _ = m2.Update(keyMsg("esc"))
		if !m2.AtRest() {
			t.Fatalf("%s: esc left it, the viewer is at rest again", tc.name)
		}
	}
}

func TestCloses(t *testing.T) {
	m := open(t, fixture("contrl_22_rejected.edi"))
	if !m.Closes(keyMsg("q")) || !m.Closes(keyMsg("esc")) {
		t.Fatal("at rest, q and esc close the viewer")
	}
	if m.Closes(keyMsg("j")) {
		t.Fatal("j moves, it does not close")
	}
	issues, _ := m.Update(keyMsg("i"))
	if issues.Closes(keyMsg("esc")) || !issues.Closes(keyMsg("q")) {
		t.Fatal("with the issues pane open esc leaves the pane, q still closes")
	}
	typing, _ := m.Update(keyMsg("/"))
	if typing.Closes(keyMsg("q")) || typing.Closes(keyMsg("esc")) {
		t.Fatal("while a search is typed q is a letter and esc ends the search")
	}
}
