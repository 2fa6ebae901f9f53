package index

import (
	"github.com/driftkit/driftkit/workspace"
)

// Doc is one row of index/docs.parquet (see workspace.Document): row i of
// docs.parquet is row i of vectors.npy.
type Doc = workspace.Document

// BuildUsage inverts statement dependencies: for each premise, the documents
// whose statement uses it, sorted by name, with their count.
func BuildUsage(docs []Doc) []workspace.Usage {
	by := map[string][]string{}
	for _, d := range docs {
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
