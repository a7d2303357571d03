package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/events"
	"github.com/nutrab2b/b2bx/events/webhook"
)

func TestEventListenRefusesPlainHTTPOffLoopback(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, eventCanary+"\n", "event", "listen", "--secret-stdin", "--addr", "0.0.0.0:0", "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "plain http is only allowed on a loopback address")
	require.Contains(t, errOut, "--tls-cert FILE --tls-key FILE")
}

func TestEventListenNeedsASecret(t *testing.T) {
	ev := newEventEnv(t)
	code, _, errOut := ev.run(t, "", "event", "listen", "--dir", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "give the webhook secret")
}

func TestListenLineSanitisesEventText(t *testing.T) {
	r := webhook.Record{Time: time.Unix(0, 0), Senders: []string{"evil\x1b[31m"}, Types: []string{"nutrab2b.x\x9b.y.v2"},
		Answer: events.Answer{Status: 200, Result: events.ResultACK, Delivery: "000000000001.http",
			Events:   []events.EventAnswer{{Subject: "PO\x07", Sequence: 3}},
			Findings: []events.Finding{{Severity: events.SevWarning, Code: events.CodeDuplicate, Platform: events.NBDuplicate}}}}
	line := listenLine(r)
	require.NotContains(t, line, "\x1b")
	require.NotContains(t, line, "\x9b")
	require.NotContains(t, line, "\x07")
	require.True(t, strings.Contains(line, "DUPLICATE/NB-E005~"), line)
	require.Contains(t, line, "000000000001.http")
}
