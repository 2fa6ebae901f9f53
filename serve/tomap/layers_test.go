package tomap

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers keeps the runner in its layer (DESIGN.md): it builds on the
// model and Lean clients, the journal and the workspace's atomic files, and
// never on the stages, the search engines, the server or the command.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Skip("go list:", err)
	}
	const mod = "github.com/driftkit/driftkit/"
	allowed := []string{"workspace", "internal/", "lean", "llm", "serve/tomap"}
	for _, p := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(p, mod)
		if !ok {
			continue
		}
		okLayer := false
		for _, a := range allowed {
			if rest == a || strings.HasPrefix(rest, a) && (strings.HasSuffix(a, "/") || strings.HasPrefix(rest, a+"/")) {
				okLayer = true
			}
		}
		if !okLayer || strings.HasPrefix(rest, "internal/testkit/fakeopenai") {
			t.Errorf("serve/tomap imports %s, outside its layer", p)
		}
	}
}
