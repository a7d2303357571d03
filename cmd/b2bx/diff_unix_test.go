//go:build unix

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDiffStopsWhileReading: b2bx diff of a FIFO that nobody writes
// stops when the command is interrupted (its context is done) instead of
// waiting for a writer for ever.
func TestDiffStopsWhileReading(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ordrsp.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	var stdout, stderr bytes.Buffer
	e := &env{stdin: bytes.NewReader(nil), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, e, []string{"diff", filepath.Join("..", "..", "testdata", "edifact", "orders_d96a.edi"), fifo})
	}()
	time.Sleep(20 * time.Millisecond) // waiting for the FIFO's writer
	cancel()
	select {
	case code := <-done:
		require.Equal(t, exitInterrupted, code)
		require.Contains(t, stderr.String(), "b2bx diff: interrupted while reading "+fifo+": nothing was compared")
		require.Empty(t, stdout.String())
	case <-time.After(10 * time.Second):
		t.Fatal("diff did not stop when interrupted")
	}
}
