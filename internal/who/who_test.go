package who

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	assert.Equal(t, "alice on host-3", Who{User: "alice", Host: "host-3"}.String())
	assert.Equal(t, "alice", Who{User: "alice"}.String())
	assert.Equal(t, "someone on host-3", Who{Host: "host-3"}.String())
	assert.Equal(t, "", Who{}.String())
}

func TestDefaultPrefersTheConfiguredUser(t *testing.T) {
	w := Default("  alice ")
	assert.Equal(t, "alice", w.User)
	assert.NotEmpty(t, Default("").User, "the OS user")
}

func TestCleanDropsEscapesAndBoundsLength(t *testing.T) {
	w := Who{User: "al\x1b]52;c;ZZ\x07ice", Host: strings.Repeat("h", 500)}.Clean()
	assert.NotContains(t, w.User, "\x1b")
	assert.NotContains(t, w.User, "\x07")
	assert.Len(t, []rune(w.Host), maxLen)
}
