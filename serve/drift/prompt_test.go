package drift

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, got)
	}
}

func render(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("===== " + m.Role + " =====\n" + m.Content + "\n")
	}
	return b.String()
}

func TestPromptsGolden(t *testing.T) {
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Examples) != 5 {
		t.Errorf("%d few-shot examples, want 5", len(p.Examples))
	}
	areas := map[string]bool{}
	for _, e := range p.Examples {
		areas[e.Area] = true
	}
	if len(areas) != 5 {
		t.Errorf("examples from %d areas, want 5 different ones", len(areas))
	}
	golden(t, "decompose_prompt.golden", render(append(p.DecomposeMessages(stmtPrime), p.DecomposeRepair("the answer does not start with a JSON object"))))
	c := testLibrary()
	prem := []Premise{{Name: "Lib.Prime"}, {Name: "Lib.Dvd"}}
	(&retriever{corpus: c}).describe(prem)
	ils := Illustrate(c, []string{"Lib.Prime", "Lib.Dvd"}, IllustrateOptions{Exclude: []string{"Lib.Bench.thm1"}})
	msgs := p.FormalizeMessages(FormalizeInput{Statement: stmtPrime, Header: "import Lib\n\nopen Lib\n", Premises: prem, Illustrations: ils})
	msgs = append(msgs, p.FormalizeRepair("theorem x : BAD := by sorry", []string{"line 1, column 12: unknown identifier 'BAD'"}, ""),
		p.FormalizeRepair("", nil, ErrNoLeanBlock.Error()))
	golden(t, "formalize_prompt.golden", render(msgs))
	zero := p.FormalizeMessages(FormalizeInput{Statement: stmtPrime})
	golden(t, "formalize_zero_shot.golden", render(zero))
}

// The examples must not come from a benchmark we evaluate on.
func TestExamplesAreNotBenchmarkItems(t *testing.T) {
	p, _ := LoadPrompts(PromptVersion)
	paths := []string{filepath.Join(repoRoot(t), "testdata", "bench.jsonl"), "/work/shared/benchmarks/connf/benchmark-dev.jsonl", "/work/shared/benchmarks/proofnet/valid.jsonl"}
	for _, path := range paths {
		if !fileExists(path) {
			continue
		}
		items, err := ReadBenchFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			for _, e := range p.Examples {
				if strings.EqualFold(oneLine(it.Informal), oneLine(e.Statement)) {
					t.Errorf("example %q is item %s of %s", e.Statement, it.Key, path)
				}
			}
		}
	}
}
