package partnersim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nutrab2b/b2bx/edi"
)

func storyOrders(doc string) []byte {
	return fmt.Appendf(nil, "UNA:+.? 'UNB+UNOC:3+4012345000009:14+4098765000003:14+250602:0800+REF1'UNH+1+ORDERS:D:96A:UN'BGM+220+%s+9'"+
		"DTM+137:20250602:102'NAD+BY+4012345000009::9'LIN+1++4000862141404:SRS'QTY+21:5'UNS+S'UNT+8+1'UNZ+1+REF1'", doc)
}

func TestStoryResponder(t *testing.T) {
	r := DemoStories()
	rej := r.Respond(Upload{ID: "u1", Payload: storyOrders(DemoRejected)})
	require.Len(t, rej, 1)
	require.Equal(t, "CONTRL", rej[0].MessageType)
	doc, err := edi.Parse(rej[0].Payload)
	require.NoError(t, err)
	c := doc.Messages[0].Summary().Contrl
	require.Equal(t, "rejected", c.Verdict)
	require.Equal(t, "REF1", c.InterchangeRef)
	require.Len(t, c.Messages, 1)
	require.Equal(t, "1", c.Messages[0].Ref)
	require.Len(t, c.Messages[0].Segments, 1)

	require.Empty(t, r.Respond(Upload{ID: "u2", Payload: storyOrders(DemoSilent)}), "never answered")

	ok := r.Respond(Upload{ID: "u3", Payload: storyOrders("PO-4711")})
	var types []string
	for _, x := range ok {
		types = append(types, x.MessageType)
	}
	require.Equal(t, []string{"CONTRL", "ORDRSP"}, types, "the default partner for every other order")
}

func TestDemoOrdersTellTheStories(t *testing.T) {
	files := DemoOrders(time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC))
	require.Len(t, files, 3)
	r := DemoStories()
	for name, want := range map[string][]string{"PO-4711.edi": {"CONTRL", "ORDRSP"}, DemoRejected + ".edi": {"CONTRL"}, DemoSilent + ".edi": nil} {
		doc, err := edi.Parse(files[name])
		require.NoError(t, err)
		require.False(t, doc.HasErrors(), "%s is a valid ORDERS: %v", name, doc.Issues())
		var got []string
		for _, x := range r.Respond(Upload{ID: name, Payload: files[name]}) {
			got = append(got, x.MessageType)
		}
		require.Equal(t, want, got, name)
	}
}
