//go:build e2e

package e2e

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// demoWebhookSecret matches the demo's webhook secret (fresh each run).
var demoWebhookSecret = regexp.MustCompile(`whsec_demo_[0-9a-f]{16,}`)

// TestAppDemoEventsLive drives the live event inspector of `b2bx demo`
// in tmux: :events listen starts the app's own receiver, the
// simulator's sender plays every fault, each finding shows on the
// screen as it arrives; esc stops the listener, q quits, nothing is
// left running and no secret was drawn.
func TestAppDemoEventsLive(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	link := demoBinary(t, w)
	p := newPane(t, w, 160, 50, nil)
	a := &appScreens{p: p}
	m := p.start(shellCmd(link, "demo"))
	a.waitScreen("both demo tabs", 30*time.Second, contains("1 acme-de", "2 acme-at", "page 1:"))

	p.key(":")
	p.send("events listen")
	a.waitScreen("the live inspector", 30*time.Second, contains("Events — live", "LIVE on http://127.0.0.1:", "secret: profile acme-de (keyring)"))
	s := a.waitScreen("every fault's finding", 60*time.Second, contains(
		"DUPLICATE NB-E005",
		"SEQUENCE_OUT_OF_ORDER",
		"SEQUENCE_MISSING",
		"SIGNATURE_INVALID NB-E008  D",
		"600s behind the clock",
		"EVENT_TOO_LARGE",
		"RATE_LIMIT NB-E012"))
	require.Contains(t, s, "1 released", "the parked event of the out-of-order pair was released")
	p.key("Tab")
	a.waitScreen("the streams view", 10*time.Second, contains("[Streams", "subject fault/gap", "subject fault/out-of-order"))

	p.key("Escape")
	a.waitScreen("the inspector closed", 10*time.Second, func(s string) bool { return !contains("Events — live")(s) })
	p.key("q")
	code, h := p.wait(m, 30*time.Second)
	require.Equal(t, 0, code, "b2bx demo exits 0:\n%s", h)
	for i, screen := range append(a.seen, h) {
		require.NotRegexp(t, demoWebhookSecret, screen, "screen %d shows the webhook secret", i)
		require.NotRegexp(t, simSecret, screen, "screen %d shows a simulator secret", i)
	}
	require.Empty(t, processesOf(t, link), "the demo left a process running")
	requireEmptyDir(t, w.tmpDir)
}
