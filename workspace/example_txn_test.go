package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/driftkit/driftkit/workspace"
)

// A stage that builds a new generation of a folder and switches a pointer to
// it: the generation, the pointer and the manifest entry take effect in one
// commit (a crash leaves the old pointer, or the next run finishes the
// switch).
func ExampleTxn_generation() {
	dir, _ := os.MkdirTemp("", "ws-")
	defer os.RemoveAll(dir)
	ws, _ := workspace.Open(dir)

	unlock, err := ws.Lock("index")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer unlock()
	run := ws.StartRun("index", nil)
	tx := ws.Begin("index")
	defer tx.Abort()
	gen, _ := tx.TempDir("index/gen-2") // becomes index/gen-2 at commit
	os.WriteFile(filepath.Join(gen, "vectors.npy"), []byte("…"), 0o644)
	tx.WriteFile("index/CURRENT", []byte("gen-2\n")) // the pointer, renamed last
	tx.Output("index/gen-2/vectors.npy", 3)
	tx.Output("index/CURRENT", 0)
	if err := tx.Commit(run); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(ws.Path("index", "CURRENT"))
	m, _ := ws.ReadManifest()
	fmt.Printf("CURRENT → %s", b)
	fmt.Println(m.Runs[0].Outputs[0].Path, m.Runs[0].Outputs[1].Path)
	// Output:
	// CURRENT → gen-2
	// index/gen-2/vectors.npy index/CURRENT
}
