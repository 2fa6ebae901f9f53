// Package layering holds the test that keeps driftkit's packages in the
// layers of DESIGN.md ("Layout"): a package imports only from layers below
// its own. Run it with `go test ./internal/layering`.
package layering

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/driftkit/driftkit"

// layers lists DESIGN.md's layers from the top down; each entry is a package
// path (relative to the module) that covers its sub-packages unless a
// longer entry claims them. Packages that do not exist yet (serve, the
// runners, internal/app) are listed so the rule holds when they land.
// Peers of one layer do not import each other, but for the edges in
// peerEdges: train trains on the index's vectors.
var layers = [][]string{
	{"cmd", "internal/tools", "dataset/interop"},
	{"serve"},
	{"serve/drift", "serve/tomap"},
	{"internal/app"},
	{"extract", "informalize", "dataset/mine", "dataset/export", "train", "index"},
	{"retrieval"},
	{"head", "llm", "lean"},
	{"dataset"},
	{"internal"}, // utilities below everything: progress, journal, leantext, cpu
}

// layerOf returns the layer index and the entry of a module package.
func layerOf(pkg string) (int, string, bool) {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	best, bl := "", -1
	for i, l := range layers {
		for _, p := range l {
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > len(best) {
				best, bl = p, i
			}
		}
	}
	return bl, best, bl >= 0
}

// peerEdges are the imports allowed between two entries of one layer.
var peerEdges = map[[2]string]bool{{"train", "index"}: true}

// peerOK reports whether entry a may import entry b of the same layer.
func peerOK(a, b string) bool { return a == b || peerEdges[[2]string{a, b}] }

type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Error      *struct{ Err string }
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-e", "-deps=false", "-json=ImportPath,Imports,Deps,Error", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// TestImportsGoDown fails on an import that goes up the layers, or sideways
// between two entries of one layer, and on a package no layer claims.
func TestImportsGoDown(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.Error != nil {
			t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
			continue
		}
		pl, pe, ok := layerOf(p.ImportPath)
		if !ok {
			t.Errorf("%s is in no layer: add it to DESIGN.md's layer list and to layers in this test", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			il, ie, ok := layerOf(imp)
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer", p.ImportPath, imp)
			case il < pl:
				t.Errorf("%s (layer %q) imports %s (layer %q, above it)", p.ImportPath, pe, imp, ie)
			case il == pl && !peerOK(pe, ie):
				t.Errorf("%s (%q) imports %s (%q): peers of one layer must not import each other", p.ImportPath, pe, imp, ie)
			}
		}
	}
}

// TestNoIncidentalEngines: the packages that consumers and data tools
// import must not drag in a search engine or a training framework, nor
// Apache Arrow's Go module, which only the embeddings export
// (index/embeddings, imported by cmd alone) uses for its Parquet writer.
func TestNoIncidentalEngines(t *testing.T) {
	const arrow = "github.com/apache/arrow-go/"
	forbidden := map[string][]string{
		"retrieval":      {"github.com/blevesearch/", "gorgonia.org/", module + "/index", module + "/train", module + "/llm", arrow},
		"retrieval/eval": {"github.com/blevesearch/", "gorgonia.org/", module + "/index", module + "/train", module + "/llm", arrow},
		// Query augmentation is called by the server and the command line:
		// a chat client, no engine.
		"retrieval/augment": {"github.com/blevesearch/", "gorgonia.org/", module + "/index", module + "/train", arrow},
		"dataset/mine":      {"github.com/blevesearch/", "gorgonia.org/", module + "/index", module + "/train", arrow},
		"dataset/export":    {"github.com/blevesearch/", "gorgonia.org/", module + "/index", module + "/train", arrow},
		"head":              {"github.com/blevesearch/", "gorgonia.org/", arrow},
		"dataset":           {"github.com/blevesearch/", "gorgonia.org/", "gonum.org/", arrow},
		"index":             {arrow},
		"train":             {arrow},
	}
	for rel, bad := range forbidden {
		cmd := exec.Command("go", "list", "-deps", "./"+rel)
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", rel, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if strings.HasPrefix(dep, b) {
					t.Errorf("%s depends on %s", rel, dep)
				}
			}
		}
	}
}
