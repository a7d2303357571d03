package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const canary = "CANARY-s3cr3t-7f1d"

func TestValueNeverPrints(t *testing.T) {
	v := New(canary)
	c := Credential{KeyID: "key-1", Secret: v}
	type holder struct {
		S Value
		C Credential
		P *Value
	}
	h := holder{S: v, C: c, P: &v}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v"} {
		outs = append(outs, fmt.Sprintf(verb, v), fmt.Sprintf(verb, c), fmt.Sprintf(verb, h))
	}
	outs = append(outs, fmt.Sprint(v, c, h), fmt.Sprintln(v), v.String(), v.GoString(), c.String(), c.GoString())
	for _, x := range []any{v, c, h, &h} {
		b, err := json.Marshal(x)
		require.NoError(t, err)
		outs = append(outs, string(b))
	}
	tb, _ := v.MarshalText()
	outs = append(outs, string(tb))
	var logBuf bytes.Buffer
	for _, hnd := range []slog.Handler{slog.NewJSONHandler(&logBuf, nil), slog.NewTextHandler(&logBuf, nil)} {
		l := slog.New(hnd)
		l.Info("x", "secret", v, "cred", c, "any", h)
	}
	outs = append(outs, logBuf.String())
	outs = append(outs, fmt.Errorf("wrapped: %v / %w", c, errors.New("e")).Error())
	for _, o := range outs {
		require.NotContains(t, o, canary)
		require.NotContains(t, o, fmt.Sprintf("%x", canary))
	}
	require.Contains(t, fmt.Sprint(c), "key-1", "key id stays visible")
	require.Equal(t, canary, v.Reveal())
	require.Equal(t, "Bearer key-1:"+canary, c.BearerHeader())
}

func TestParseCredential(t *testing.T) {
	c, err := ParseCredential(" key-9:" + canary + "\n")
	require.NoError(t, err)
	require.Equal(t, "key-9", c.KeyID)
	require.True(t, c.Secret.Equal(New(canary)))
	for _, bad := range []string{"", "nocolon" + canary, ":" + canary, "id:", "id:a b" + canary} {
		_, err := ParseCredential(bad)
		require.Error(t, err, bad)
		require.False(t, strings.Contains(err.Error(), canary), "error leaks input")
	}
}

func TestZero(t *testing.T) {
	var v Value
	require.True(t, v.IsZero())
	require.Equal(t, "", v.Reveal())
	require.True(t, New("").IsZero())
	require.Equal(t, 3, New("abc").Len())
}
