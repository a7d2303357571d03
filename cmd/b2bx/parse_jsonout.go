package main

import (
	"bufio"
	"context"

	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/jsonout"
)

// The JSON of `parse --json` is edi/jsonout's (the app's viewer writes
// it too); these names keep parse's code and tests as they were.

func writeParseJSON(ctx context.Context, w *bufio.Writer, name string, doc *edi.Document, list segmentList) error {
	return jsonout.Write(ctx, w, name, doc, jsonout.Options{Segments: list.on, Describe: list.describe})
}

type interchangeJSON = jsonout.Interchange

func newInterchangeJSON(ic edi.Interchange) interchangeJSON { return jsonout.NewInterchange(ic) }
func newGroupJSON(g edi.Group) jsonout.Group                { return jsonout.NewGroup(g) }
func newMessageJSON(m edi.Message) jsonout.Message          { return jsonout.NewMessage(m) }
func jsonSafe(b []byte) []byte                              { return jsonout.Safe(b) }
func appendJSONString(b []byte, s string) []byte            { return jsonout.AppendString(b, s) }
func plainASCII(b []byte) bool                              { return jsonout.PlainASCII(b) }
