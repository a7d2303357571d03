package orders

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A shape line reads as encoding/json reads it, whichever path it takes.
func TestShapeLinesReadAsEncodingJSON(t *testing.T) {
	sha := "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, line := range []string{
		`{"sha":"` + sha + `","features":["BGM","DTM+137","NAD+BY"]}`,
		`{"sha":"` + sha + `","features":[]}`,
		`{"sha":"` + sha + `","features":null}`,
		`{"sha":"` + sha + `","features":["QTY+21","\u00c4"]}`,
		`{"sha":"` + sha + `","other":1}`,
		`{"SHA":"` + sha + `"}`,
		`{"sha":"` + sha + `","features":["a"],"features":["b"]}`,
		`{"sha":"` + sha,
		`not json`,
	} {
		var want shapeLine
		werr := json.Unmarshal([]byte(line), &want)
		got, ok := decodeShapeLine([]byte(line), map[string]string{})
		require.Equal(t, werr == nil, ok, "%s", line)
		if ok {
			require.Equal(t, want, got, "%s", line)
		}
	}
}
