package serve

import (
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/leakcheck"
)

// TestMain fails the package when a test leaves a goroutine running: a
// server, reload, run or DRIFT stream that does not stop with its owner.
func TestMain(m *testing.M) { leakcheck.Main(m) }
