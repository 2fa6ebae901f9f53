// Command libqueries writes queries drawn from a workspace's own library,
// as JSON lines eval retrieval and serve's load benchmark read: the
// informal statements of a fixed sample of its theorems (the first n by a
// hash of the name), each with its full name (never returned for it) and
// its statement and proof dependencies as gold. For benchmarks of speed and
// of one backend against another (index/scripts/bench_weaviate.sh): no
// public benchmark's queries are needed to load a server.
//
//	go run ./internal/tools/libqueries -ws WS [-n 2000] > queries.jsonl
package main

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// item is one line of the output (retrieval/eval.BenchItem's fields).
type item struct {
	InformalStmt string   `json:"informal_stmt"`
	FormalStmt   string   `json:"formal_stmt"`
	FullName     string   `json:"full_name"`
	Gold         []string `json:"mathlib_dependencies"`
}

func main() {
	ws := flag.String("ws", "", "workspace with declarations.parquet and informal.parquet (required)")
	n := flag.Int("n", 2000, "queries")
	flag.Parse()
	if *ws == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: libqueries -ws WS [-n 2000] > queries.jsonl")
		os.Exit(2)
	}
	items, err := sample(*ws, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "libqueries:", err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			fmt.Fprintln(os.Stderr, "libqueries:", err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "libqueries:", err)
		os.Exit(1)
	}
}

// sample picks n theorems with an informal statement and dependencies.
func sample(dir string, n int) ([]item, error) {
	w, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	decls, err := workspace.ReadTable[workspace.Declaration](w.Path(workspace.DeclarationsFile))
	if err != nil {
		return nil, err
	}
	infos, err := workspace.ReadTable[workspace.Informal](w.Path(workspace.InformalFile))
	if err != nil {
		return nil, err
	}
	stmt := make(map[string]string, len(infos))
	for _, r := range infos {
		stmt[r.Name] = r.InformalStatement
	}
	type keyed struct {
		key string
		it  item
	}
	var all []keyed
	for _, d := range decls {
		s := strings.TrimSpace(stmt[d.Name])
		deps := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(d.StatementDeps), d.ProofDeps...))))
		if d.Kind != "theorem" || s == "" || len(deps) == 0 {
			continue
		}
		h := sha256.Sum256([]byte(d.Name))
		all = append(all, keyed{fmt.Sprintf("%x", h[:8]), item{InformalStmt: s, FormalStmt: d.Signature, FullName: d.Name, Gold: deps}})
	}
	slices.SortFunc(all, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	out := make([]item, 0, n)
	for _, k := range all[:min(n, len(all))] {
		out = append(out, k.it)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no theorem with an informal statement and dependencies", dir)
	}
	return out, nil
}
