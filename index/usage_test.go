package index

import (
	"maps"
	"slices"
	"testing"

	"github.com/driftkit/driftkit/workspace"
)

// TestUsageCountsWrittenDeclarationsOnly: the usage graph (statement uses)
// and the proof-use counts — what both profiles' usage priors read — count
// the declarations people wrote, not the rows Lean generates from them.
// An inductive's constructors name it, its derived instances name it and
// the class, a to_additive twin repeats its source's uses: none is
// evidence that anyone uses T (Mathlib's
// Mathlib.Meta.FunProp.LambdaTheoremType had 3 written users and 13
// generated ones: 7 constructors, 4 derived instances).
func TestUsageCountsWrittenDeclarationsOnly(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	from := func(s string) *string { return &s }
	decls := []workspace.Declaration{
		{Name: "T", Kind: "inductive", Signature: ": Type"},
		{Name: "T.a", Kind: "constructor", Signature: ": T", StatementDeps: []string{"T"}, GeneratedFrom: from("T")},
		{Name: "T.b", Kind: "constructor", Signature: ": T", StatementDeps: []string{"T"}, GeneratedFrom: from("T")},
		{Name: "instReprT", Kind: "instance", Signature: "Repr T", StatementDeps: []string{"Repr", "T"}, GeneratedFrom: from("T")},
		{Name: "Repr", Kind: "class", Signature: "(α : Type) : Type"},
		{Name: "lemma", Kind: "theorem", Signature: ": True"},
		{Name: "foo", Kind: "theorem", Signature: "(x : T) : x = x", StatementDeps: []string{"T"}, ProofDeps: []string{"lemma", "Repr"}},
		{Name: "add_foo", Kind: "theorem", Signature: "(x : T) : x = x", StatementDeps: []string{"T"}, ProofDeps: []string{"lemma"}, GeneratedFrom: from("foo")},
		{Name: "bar", Kind: "theorem", Signature: ": True", ProofDeps: []string{"lemma"}},
	}
	if err := workspace.WriteTable(ws.Path(workspace.DeclarationsFile), decls); err != nil {
		t.Fatal(err)
	}
	docs, err := workspace.LoadDocuments(ws)
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	for _, d := range docs {
		if d.Generated {
			generated = append(generated, d.Name)
		}
	}
	if want := []string{"T.a", "T.b", "instReprT", "add_foo"}; !slices.Equal(generated, want) {
		t.Errorf("generated documents %v, want %v", generated, want)
	}
	users := map[string][]string{}
	for _, u := range BuildUsage(docs) {
		users[u.Premise] = u.UsedBy
		if int(u.Count) != len(u.UsedBy) {
			t.Errorf("%s: count %d, %d users", u.Premise, u.Count, len(u.UsedBy))
		}
	}
	if want := map[string][]string{"T": {"foo"}}; !maps.EqualFunc(users, want, slices.Equal) {
		t.Errorf("statement users %v, want %v (generated rows are not users)", users, want)
	}
	proof, err := workspace.ProofUses(ws)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int32{"lemma": 2, "Repr": 1}; !maps.Equal(proof, want) {
		t.Errorf("proof uses %v, want %v (add_foo, a twin, is not a user)", proof, want)
	}
}
