package logview

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/apiclient/secret"
)

const canary = "CANARY-SECRET-logview-4f9d"

func TestHandlerKeepsOnlyAllowedFields(t *testing.T) {
	h := New(10, nil)
	log := slog.New(h)
	cred := secret.Credential{KeyID: "key-acme", Secret: secret.New(canary)}
	log.Warn("partner api call",
		"op", "claim", "status", 404, "code", "ERR_B2B_EXCHANGE_NOT_FOUND",
		"correlationId", "corr-1", "connectionId", "conn-1", "deliveryAttemptId", "da-1",
		"duration", 1500*time.Microsecond,
		"token", canary, "secret", canary, "keyId", "key-acme", "credential", cred,
		"message", "server text "+canary, "path", "/home/x/"+canary)
	es := h.Entries()
	require.Len(t, es, 1)
	e := es[0]
	require.Equal(t, slog.LevelWarn, e.Level)
	require.Equal(t, "partner api call", e.Message)
	require.Equal(t, []Field{
		{"op", "claim"}, {"status", "404"}, {"code", "ERR_B2B_EXCHANGE_NOT_FOUND"},
		{"correlationId", "corr-1"}, {"connectionId", "conn-1"}, {"deliveryAttemptId", "da-1"},
		{"duration", "2ms"},
	}, e.Fields)
	line := e.Format()
	require.NotContains(t, line, canary)
	require.NotContains(t, line, "key-acme")
	require.Contains(t, line, "correlationId=corr-1")
	require.Regexp(t, `WRN partner api call op=claim status=404 code=ERR_B2B_EXCHANGE_NOT_FOUND correlationId=corr-1 duration=2ms deliveryAttemptId=da-1 connectionId=conn-1$`, line,
		"the correlation ID comes before the long IDs")
}

func TestHandlerErrorFieldKeepsOnlyAClassWord(t *testing.T) {
	h := New(10, nil)
	log := slog.New(h)
	log.Warn("a", "error", "network")
	log.Warn("b", "error", errors.New("open /home/x/"+canary+": denied"))
	es := h.Entries()
	require.Equal(t, "network", es[0].Fields[0].Value)
	require.Equal(t, "(text dropped)", es[1].Fields[0].Value)
}

func TestHandlerSanitisesAndCaps(t *testing.T) {
	h := New(10, nil)
	slog.New(h).Info("title\x1b]0;pwned\x07", "deliveryAttemptId", "da\x1b[2J\u202e", "op", strings.Repeat("x", 500))
	e := h.Entries()[0]
	line := e.Format()
	require.NotContains(t, line, "\x1b")
	require.NotContains(t, line, "\x07")
	require.NotContains(t, line, "\u202e")
	require.Contains(t, line, "^[")
	require.LessOrEqual(t, len([]rune(e.Fields[1].Value)), maxValue+1)
}

func TestHandlerWithAttrsAndGroups(t *testing.T) {
	h := New(10, nil)
	log := slog.New(h).With("connectionId", "conn-9", "keyId", "k").WithGroup("req")
	log.Info("x", "op", "list", "correlationId", "c")
	slog.New(h).Info("y", slog.Group("", slog.String("op", "ack")), slog.Group("g", slog.String("op", "no")))
	es := h.Entries()
	// Grouped keys are "req.op": not on the list, so dropped.
	require.Equal(t, []Field{{"connectionId", "conn-9"}}, es[0].Fields)
	require.Equal(t, []Field{{"op", "ack"}}, es[1].Fields)
}

func TestHandlerRingKeepsTheNewest(t *testing.T) {
	h := New(3, nil)
	log := slog.New(h)
	for i := range 7 {
		log.Info(fmt.Sprint("m", i))
	}
	var got []string
	for _, e := range h.Entries() {
		got = append(got, e.Message)
	}
	require.Equal(t, []string{"m4", "m5", "m6"}, got)
	require.Equal(t, uint64(7), h.Seq())
}

func TestHandlerLevel(t *testing.T) {
	h := New(3, slog.LevelInfo)
	require.False(t, h.Enabled(context.Background(), slog.LevelDebug))
	require.True(t, h.Enabled(context.Background(), slog.LevelWarn))
	require.True(t, New(3, nil).Enabled(context.Background(), slog.LevelDebug))
}
