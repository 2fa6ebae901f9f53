package retrieval

import (
	"math"
	"sync"
)

// Theorem search's usage prior is soft: it scales a candidate's fused
// score by 1 + UsagePrior·log(1+u)/log(1+max u), where u counts the
// declarations that use the candidate — in their proofs (the index's
// proof_uses column, from declarations.parquet's proof_deps; a lemma is
// used there, seldom in statements) plus in their statements — and max u
// is the largest count of the table (LeanExplore ranks by log-normalised
// dependents the same way). A well-used lemma moves up among hits the
// query's text already found; it never brings in one the text did not.

// AddProofUses fills the proof_uses group: each document's count in uses
// (ProofUses' map; nil leaves the group empty, and the prior then counts
// statement uses alone).
func (c *TableColumns) AddProofUses(uses map[string]int32) {
	if uses == nil {
		return
	}
	n := c.Names.Len()
	c.ProofUses = make([]int32, n)
	for i := range n {
		c.ProofUses[i] = uses[c.Names.At(i)]
	}
}

// usageState is a Table's usage normaliser, computed on first use.
type usageState struct {
	once sync.Once
	// logMax is log(1 + the largest usage count), 0 when nothing is used.
	logMax float64
}

// usesAll is how many declarations use doc, in proofs and statements.
func (t *Table) usesAll(doc int) int {
	u := int(t.c.Uses[doc])
	if len(t.c.ProofUses) > doc {
		u += int(t.c.ProofUses[doc])
	}
	return u
}

// UsageShare is a declaration's usage, log-normalised to [0, 1] as the
// prior reads it: log(1+u)/log(1+max u) (0 for a name not in the table, a
// damaged proof-use group, or a table where nothing is used). It is the
// reranker's "usage" feature.
func (t *Table) UsageShare(name string) float64 {
	doc, ok := t.docOf(name)
	lm := t.logMaxUses()
	if !ok || lm == 0 {
		return 0
	}
	return math.Log1p(float64(t.usesAll(doc))) / lm
}

// logMaxUses is log(1 + the table's largest usage count), computed once; 0
// when the proof-use group is damaged or nothing is used.
func (t *Table) logMaxUses() float64 {
	if t.group(GroupProofUses) != nil {
		return 0
	}
	t.usage.once.Do(func() {
		m := 0
		for d := range t.n {
			m = max(m, t.usesAll(d))
		}
		t.usage.logMax = math.Log1p(float64(m))
	})
	return t.usage.logMax
}

// usagePrior returns the prior's scale of a document under weight a (nil
// when a is 0, the table's proof-use group is damaged, or nothing is used).
func (t *Table) usagePrior(a float64) func(doc int) float64 {
	lm := t.logMaxUses()
	if a <= 0 || lm == 0 {
		return nil
	}
	return func(doc int) float64 { return 1 + a*math.Log1p(float64(t.usesAll(doc)))/lm }
}
