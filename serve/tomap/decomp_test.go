package tomap

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func units(spec ...string) Decomposition {
	// spec: "id:dep1,dep2"
	var d Decomposition
	for _, s := range spec {
		id, deps, _ := strings.Cut(s, ":")
		u := Unit{ID: id, Claim: "claim " + id}
		if deps != "" {
			u.Deps = strings.Split(deps, ",")
		}
		d.Units = append(d.Units, u)
	}
	return d
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Decomposition
		want []error // sentinels that must be reported; nil: valid
		not  []error // sentinels that must not be
	}{
		{"chain", units("a", "b:a", "main:b"), nil, nil},
		{"diamond", units("a", "b:a", "c:a", "main:b,c"), nil, nil},
		{"single unit", units("main"), nil, nil},
		{"repeated dependency is fine", units("a", "main:a,a"), nil, nil},
		{"empty", Decomposition{}, []error{ErrEmpty}, nil},
		{"cycle", units("a:c", "b:a", "c:b", "main:c"), []error{ErrCycle}, []error{ErrForwardRef}},
		{"two-cycle", units("a:b", "b:a", "main:b"), []error{ErrCycle}, []error{ErrForwardRef}},
		{"self", units("a:a", "main:a"), []error{ErrSelfDep}, []error{ErrCycle}},
		{"forward reference", units("a:b", "b", "main:a"), []error{ErrForwardRef}, []error{ErrCycle}},
		{"unused unit", units("a", "b", "main:b"), []error{ErrUnused}, nil},
		{"used only by a forward ref is unused", units("a:b", "b", "main:a"), []error{ErrUnused}, nil},
		{"unknown dep", units("a", "main:a,zz"), []error{ErrUnknownDep}, nil},
		{"duplicate id", units("a", "a", "main:a"), []error{ErrDuplicate}, nil},
		{"bad id", units("l 1", "main:l 1"), []error{ErrBadID}, nil},
		{"keyword id", units("have", "main:have"), []error{ErrBadID}, nil},
		{"digit first", units("1a", "main:1a"), []error{ErrBadID}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.d.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("valid decomposition rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("want %v in %v", w, err)
				}
			}
			for _, n := range tc.not {
				if errors.Is(err, n) {
					t.Errorf("did not want %v in %v", n, err)
				}
			}
			var de *DAGError
			if !errors.As(err, &de) {
				t.Errorf("%v is not a *DAGError", err)
			}
		})
	}
}

func TestCycleMessageNamesThePath(t *testing.T) {
	d := units("a:c", "b:a", "c:b", "main:c")
	err := d.Validate()
	if err == nil || !strings.Contains(err.Error(), "→") {
		t.Fatalf("cycle message without its path: %v", err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if !strings.Contains(err.Error(), id) {
			t.Errorf("cycle message %q does not name %s", err, id)
		}
	}
	if len(problems(err)) == 0 {
		t.Error("problems() lists nothing")
	}
}

func TestParseDecomposition(t *testing.T) {
	good := `{"units": [{"id": "l1", "claim": "x > 0", "variables": ["x : real"], "assumptions": [], "depends_on": [], "hints": "given"},
	{"id": "main", "claim": "x^2 > 0", "variables": ["x : real"], "assumptions": ["x > 0"], "depends_on": ["l1"], "hints": "square"}]}`
	d, err := ParseDecomposition(good)
	if err != nil || len(d.Units) != 2 || d.Units[1].Deps[0] != "l1" {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := ParseDecomposition("```json\n" + good + "\n```"); err != nil {
		t.Errorf("fenced: %v", err)
	}
	for _, bad := range []string{
		"", "Sure! Here it is: " + good, good + " and more", `{"units": "l1"}`, `{"steps": []}`, "{}",
		`{"units": [{"id": "l1", "claim": "c", "type": "lemma"}]}`, // unknown field
		"```lean\n" + good + "\n```",
	} {
		_, err := ParseDecomposition(bad)
		if !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%q: got %v, want ErrBadAnswer", clip(bad, 40), err)
		}
	}
	_, err = ParseDecomposition(`{"units": [{"id": "a", "claim": "c", "depends_on": ["main"]}, {"id": "main", "claim": "c", "depends_on": ["a"]}]}`)
	if !errors.Is(err, ErrCycle) || errors.Is(err, ErrBadAnswer) {
		t.Errorf("cyclic answer: %v", err)
	}
}

// TestReferenceGraphs validates ProofFlowBench's reference proof graphs with
// the Decomposer's rules. The annotations were not written to these rules
// (premise nodes without users, multi-part theorems), so the test pins how
// many pass rather than requiring all to, and checks that the rejected ones
// are rejected for the documented reasons only.
func TestReferenceGraphs(t *testing.T) {
	const path = "/work/shared/benchmarks/proofflow/benchmark.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skip("ProofFlowBench not available:", err)
	}
	var items []struct {
		ProofGraph []struct {
			ID   string   `json:"id"`
			NL   string   `json:"natural_language"`
			Deps []string `json:"dependencies"`
		} `json:"proof_graph"`
	}
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatal(err)
	}
	valid, reasons := 0, map[error]int{}
	for _, it := range items {
		var d Decomposition
		for _, n := range it.ProofGraph {
			d.Units = append(d.Units, Unit{ID: n.ID, Claim: n.NL, Deps: n.Deps})
		}
		err := d.Validate()
		if err == nil {
			valid++
			continue
		}
		for _, s := range []error{ErrUnused, ErrForwardRef, ErrUnknownDep, ErrCycle, ErrBadID, ErrDuplicate, ErrEmptyClaim, ErrSelfDep} {
			if errors.Is(err, s) {
				reasons[s]++
			}
		}
	}
	t.Logf("%d of %d reference graphs satisfy the Decomposer's rules; rejected for %v", valid, len(items), reasons)
	if valid < len(items)/2 {
		t.Errorf("only %d of %d reference graphs are valid DAGs by our rules", valid, len(items))
	}
	if reasons[ErrBadID]+reasons[ErrDuplicate] > 0 {
		t.Errorf("reference ids rejected as identifiers or duplicates: %v", reasons)
	}
}
