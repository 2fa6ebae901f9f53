// Package sample builds small tables that cover every column shape the
// workspace uses (lists, empty lists, nulls, empty strings, unicode), for
// interoperability tests in Go (DuckDB) and Python (pyarrow).
package sample

import (
	"fmt"
	"path/filepath"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/workspace"
)

func ptr(s string) *string { return &s }

// Declarations returns sample declaration rows.
func Declarations() []workspace.Declaration {
	return []workspace.Declaration{
		{Library: "driftlib", Revision: "r1", Name: "Driftlib.Nat.Prime", Kind: workspace.KindDefinition, Keyword: "def",
			Module: "Driftlib.Data.Nat.Prime", Path: "Driftlib/Data/Nat/Prime.lean", LineStart: 10, LineEnd: 12,
			Namespace: "Driftlib.Nat", Opens: []string{"Driftlib"}, Attributes: []string{"simp"},
			Docstring: ptr("A natural number `p` is *prime* if `2 ≤ p` and its only divisors are `1` and `p`."),
			Signature: "(p : ℕ) : Prop", Code: "def Prime (p : ℕ) : Prop :=\n  2 ≤ p ∧ ∀ m, m ∣ p → m = 1 ∨ m = p",
			StatementDeps: []string{"Nat"}, ProofDeps: []string{"LE.le", "Dvd.dvd"}},
		{Library: "driftlib", Revision: "r1", Name: "Driftlib.Nat.Prime.two_le", Kind: workspace.KindTheorem, Keyword: "theorem",
			Module: "Driftlib.Data.Nat.Prime", Path: "Driftlib/Data/Nat/Prime.lean", LineStart: 14, LineEnd: 15,
			Namespace: "Driftlib.Nat.Prime", Opens: []string{"Driftlib", "Nat"}, Modifiers: []string{"protected"},
			Signature: "{p : ℕ} (hp : p.Prime) : 2 ≤ p", Code: "theorem two_le {p : ℕ} (hp : p.Prime) : 2 ≤ p := hp.1",
			StatementDeps: []string{"Driftlib.Nat.Prime", "LE.le"}, ProofDeps: []string{"And.left"}},
		{Library: "driftlib", Revision: "r1", Name: "Driftlib.«weird name»", Kind: workspace.KindConstructor, Keyword: "structure",
			Module: "Driftlib.Basic", Path: "Driftlib/Basic.lean", LineStart: 1, LineEnd: 1,
			Docstring: ptr(""), GeneratedFrom: ptr("Driftlib.Weird")},
	}
}

// WriteAll writes every workspace table into dir and returns file → rows.
func WriteAll(dir string) (map[string]int64, error) {
	counts := map[string]int64{}
	put := func(name string, n int, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		counts[name] = int64(n)
		return nil
	}
	decls := Declarations()
	mods := []workspace.Module{
		{Library: "driftlib", Revision: "r1", Name: "Driftlib.Data.Nat.Prime", Path: "Driftlib/Data/Nat/Prime.lean",
			Imports: []string{"Driftlib.Data.Nat.Basic"}, Docstring: ptr("# Primes"), Declarations: 2},
		{Library: "driftlib", Revision: "r1", Name: "Driftlib.Basic", Path: "Driftlib/Basic.lean", Errors: 1, Unresolved: 3, Declarations: 1},
	}
	primeText := "A natural number $p$ is prime if $p \\ge 2$ and …"
	inf := []workspace.Informal{{Name: "Driftlib.Nat.Prime", InformalName: "prime number",
		InformalStatement: primeText, Provider: "template", PromptVersion: "template-v1",
		InputSHA256: "ab", CreatedAt: "2026-11-29T00:00:00Z", OwnInputSHA256: "cd",
		InformalSHA256: workspace.InformalTextSHA256("prime number", primeText)},
		{Name: "Driftlib.Nat.Prime.two_le", InformalName: "primes are at least two", InformalStatement: "Every prime is at least 2.",
			Provider: "openai:m", PromptVersion: "v1", InputSHA256: "ef", OwnInputSHA256: "01", CreatedAt: "2026-11-29T00:00:00Z",
			InformalSHA256: workspace.InformalTextSHA256("primes are at least two", "Every prime is at least 2."),
			// Made when Driftlib.Nat.Prime read differently: a stale context.
			Context: []workspace.InformalContext{{Name: "Driftlib.Nat.Prime", InformalSHA256: workspace.InformalTextSHA256("prime number", "An earlier wording.")}}},
		// A row written before own_input_sha256, informal_sha256 and context.
		{Name: "Driftlib.DSet", InformalName: "set", InformalStatement: "A set.", Provider: "template", PromptVersion: "template-v1",
			InputSHA256: "12", CreatedAt: "2026-11-29T00:00:00Z"}}
	pairs := []workspace.Pair{
		{QueryID: "q1", Query: "Every prime is at least two.", QuerySource: workspace.QuerySourceDocstring,
			Theorem: "Driftlib.Nat.Prime.two_le", Positives: []string{"Driftlib.Nat.Prime"}, Negatives: []string{"Driftlib.Nat.Coprime", "Driftlib.DSet"},
			NegativeSources: []string{dataset.NegativeMined, dataset.NegativeRandom}, Split: workspace.SplitTrain},
		{QueryID: "q2", Query: "x", QuerySource: workspace.QuerySourceInformal, Theorem: "T", Positives: []string{"A"}, Split: workspace.SplitValid},
	}
	usage := []workspace.Usage{{Premise: "Driftlib.Nat.Prime", UsedBy: []string{"Driftlib.Nat.Prime.two_le"}, Count: 1}}
	for _, e := range []error{
		put(workspace.DeclarationsFile, len(decls), workspace.WriteTable(filepath.Join(dir, workspace.DeclarationsFile), decls)),
		put(workspace.ModulesFile, len(mods), workspace.WriteTable(filepath.Join(dir, workspace.ModulesFile), mods)),
		put(workspace.InformalFile, len(inf), workspace.WriteTable(filepath.Join(dir, workspace.InformalFile), inf)),
		put(workspace.PairsFile, len(pairs), workspace.WriteTable(filepath.Join(dir, workspace.PairsFile), pairs)),
		put("usage.parquet", len(usage), workspace.WriteTable(filepath.Join(dir, "usage.parquet"), usage)),
	} {
		if e != nil {
			return nil, e
		}
	}
	return counts, nil
}
