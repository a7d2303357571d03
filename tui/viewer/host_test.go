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
