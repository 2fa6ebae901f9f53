package layering

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/driftkit/driftkit"

// layers lists the layers from the top down; each entry is a package path
// (relative to the module) that covers its sub-packages unless a longer
// entry claims them. The top-level folders follow the same order (see
// folderOrder): reading the tree bottom-up reads the layers.
// Peers of one layer do not import each other, but for the edges in
// peerEdges: train trains on the index's vectors; tools run test kits.
//
// internal/testkit (fakes, crash tests, fixtures), internal/tools (test and
// benchmark programs) and internal/layering are support, not product: they
// sit in the top layer so they may import anything, and
// TestSupportOnlyForTests keeps product code from importing them.
var layers = [][]string{
	{"cmd", "internal/tools", "internal/testkit", "internal/layering"},
	{"serve"},
	{"serve/drift", "serve/tomap"},
	{"app"},
	{"extract", "informalize", "dataset", "train", "index"},
	{"retrieval"},
	{"head", "llm", "lean"},
	{"workspace"},
	{"internal"}, // utilities below everything: progress, journal, leantext, jsonfile, flat, countflag, cpu
}

// support lists the folders of test and tool support (see layers).
var support = []string{"internal/testkit", "internal/tools", "internal/layering"}

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
var peerEdges = map[[2]string]bool{{"train", "index"}: true, {"internal/tools", "internal/testkit"}: true}

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
			t.Errorf("%s is in no layer: add it to README's Code layout and to layers in this test", p.ImportPath)
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
		"workspace":         {"github.com/blevesearch/", "gorgonia.org/", "gonum.org/", arrow},
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

// folderOrder is the top-level folders from the top down. A folder's
// packages import only from folders at or below it (support excepted):
// TestFoldersGoDown.
var folderOrder = []string{"cmd", "serve", "app", "extract", "informalize", "dataset", "train", "index", "retrieval", "head", "llm", "lean", "workspace", "internal"}

// folderPeers are top-level folders of one layer that may import each
// other, as peerEdges allows.
var folderPeers = map[[2]string]bool{{"train", "index"}: true}

func topFolder(pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	return top
}

func isSupport(pkg string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	for _, s := range support {
		if rel == s || strings.HasPrefix(rel, s+"/") {
			return true
		}
	}
	return false
}

// TestFoldersGoDown reads the tree as a newcomer does, folder by folder:
// every top-level folder is in folderOrder, and its packages import only
// packages of folders listed after it (or of their own folder), so the
// folders show the layers the package test enforces.
func TestFoldersGoDown(t *testing.T) {
	rank := map[string]int{}
	for i, f := range folderOrder {
		rank[f] = i
	}
	// Layers put peers side by side; folders of one layer share a rank.
	for _, l := range layers {
		first := -1
		for _, p := range l {
			if r, ok := rank[p]; ok && !strings.Contains(p, "/") {
				if first < 0 {
					first = r
				}
				rank[p] = first
			}
		}
	}
	for _, p := range listPackages(t) {
		if isSupport(p.ImportPath) {
			continue
		}
		pf := topFolder(p.ImportPath)
		pr, ok := rank[pf]
		if !ok {
			t.Errorf("%s: top-level folder %q is not in folderOrder", p.ImportPath, pf)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") || isSupport(imp) {
				continue
			}
			f := topFolder(imp)
			if f == pf || folderPeers[[2]string{pf, f}] {
				continue
			}
			if r, ok := rank[f]; !ok || r <= pr {
				t.Errorf("%s (folder %s) imports %s (folder %s, not below it)", p.ImportPath, pf, imp, f)
			}
		}
	}
}

// TestSupportOnlyForTests: product packages never import test kits or
// tools (their tests may).
func TestSupportOnlyForTests(t *testing.T) {
	for _, p := range listPackages(t) {
		if isSupport(p.ImportPath) {
			continue
		}
		for _, imp := range p.Imports {
			if isSupport(imp) {
				t.Errorf("%s imports %s, test or tool support", p.ImportPath, imp)
			}
		}
	}
}

// TestLayers prints (with -v) the layers bottom to top, each with its
// packages as go list finds them, in one screen: `make layers`. It fails
// on a package no layer claims, as TestImportsGoDown does.
func TestLayers(t *testing.T) {
	byLayer := make([][]string, len(layers))
	for _, p := range listPackages(t) {
		l, _, ok := layerOf(p.ImportPath)
		if !ok {
			t.Errorf("%s is in no layer", p.ImportPath)
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		byLayer[l] = append(byLayer[l], rel)
	}
	var b strings.Builder
	for i := len(layers) - 1; i >= 0; i-- {
		head := fmt.Sprintf("%d %s:", len(layers)-i, strings.Join(layers[i], " "))
		writeWrapped(&b, head, compactPaths(byLayer[i]), 100)
	}
	t.Log("layers, bottom to top (a package imports only from layers with a lower number; peers: see peerEdges):\n" + b.String())
}

// compactPaths writes the packages of one folder with braces, as a shell
// would: [extract extract/elab extract/jixia] → [extract extract/{elab,jixia}].
func compactPaths(pkgs []string) []string {
	var out []string
	children := map[string][]string{}
	var parents []string
	for _, p := range pkgs {
		dir, base := path.Dir(p), path.Base(p)
		if dir == "." {
			out = append(out, p)
			continue
		}
		if children[dir] == nil {
			parents = append(parents, dir)
		}
		children[dir] = append(children[dir], base)
	}
	for _, d := range parents {
		c := children[d]
		if len(c) == 1 {
			out = append(out, d+"/"+c[0])
		} else {
			out = append(out, d+"/{"+strings.Join(c, ",")+"}")
		}
	}
	return out
}

// writeWrapped writes head and the words on lines of at most width
// characters (a longer word gets a line of its own), the continuation
// lines indented.
func writeWrapped(b *strings.Builder, head string, words []string, width int) {
	line := head
	for _, w := range words {
		if len(line)+1+len(w) > width && line != "  " {
			b.WriteString(line + "\n")
			line = "  "
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}
