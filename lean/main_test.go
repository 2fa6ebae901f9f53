package lean

import (
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/leakcheck"
)

// TestMain fails the package when a test leaves a goroutine running: a
// pool's workers, a REPL's readers or a client that Close did not stop.
func TestMain(m *testing.M) { leakcheck.Main(m) }
