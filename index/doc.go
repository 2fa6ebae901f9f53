package index

import (
	"github.com/driftkit/driftkit/workspace"
)

// Doc is one row of index/docs.parquet (see workspace.Document): row i of
// docs.parquet is row i of vectors.npy.
type Doc = workspace.Document

// BuildUsage inverts statement dependencies: for each premise, the documents
// whose statement uses it, sorted by name, with their count. Generated
// documents (Doc.Generated) are not users: nobody wrote them, so what they
// mention is the written declaration's use counted again (a to_additive
// twin, a simps lemma, a constructor) or a handler's boilerplate (a derived
// instance), not evidence that people use a premise.
func BuildUsage(docs []Doc) []workspace.Usage {
	by := map[string][]string{}
	for _, d := range docs {
		if d.Generated {
			continue
		}
		for _, p := range d.Deps {
			by[p] = append(by[p], d.Name)
		}
	}
	out := make([]workspace.Usage, 0, len(by))
	for p, u := range by {
		out = append(out, workspace.Usage{Premise: p, UsedBy: u, Count: int32(len(u))})
	}
	sortUsage(out)
	return out
}
