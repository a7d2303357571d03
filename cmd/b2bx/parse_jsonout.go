package main

import (
	"bufio"
	"context"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/jsonout"
)

// The JSON of `parse --json` is edi/jsonout's (the app's viewer writes
// it too).

func writeParseJSON(ctx context.Context, w *bufio.Writer, name string, doc *edi.Document, list segmentList) error {
	return jsonout.Write(ctx, w, name, doc, jsonout.Options{Segments: list.on, Describe: list.describe})
}
