// Command renames makes a theorem-search benchmark from a library's own
// renames: every deprecated alias (`@[deprecated (since := …)] alias old :=
// New`) or deprecated declaration that names its successor (`@[deprecated
// New (since := …)] theorem old …`) is a query a user who remembers the old
// name would type, with the new name as gold. Nobody on the project wrote
// these pairs, so they are evidence for name signals (the fuzzy full-name
// fallback, Table.FuzzyName) that was not made with the signal's own
// transformation.
//
// The old names are still declarations (Lean accepts them), so the
// benchmark is meant for a workspace without them: -strip writes copies of
// declarations.parquet and informal.parquet without the deprecated rows
// (and their generated twins), to be indexed with `driftkit index`.
//
//	go run ./internal/tools/renames -ws WS -out renames.jsonl [-short short.jsonl] [-split held-out] [-strip DIR]
//
// Each item's half is eval.HalfOf of its gold name, so a tuning half and a
// held-out half never share a gold. Pairs are deduplicated by old name;
// pairs whose old and new names are equal once resolved, whose old name is
// not one identifier (`alias ⟨_, foo⟩ := foo_iff`), or whose successor is
// not a live declaration are dropped (the report counts each reason).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/retrieval/eval"
	"github.com/driftkit/driftkit/workspace"
)

// Item is one benchmark line (eval.SearchItem's JSON, the fields it needs).
type Item struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Half  string   `json:"half"`
}

var (
	// deprecatedTarget is the successor named in @[deprecated New …] (a
	// string message names none).
	deprecatedTarget = regexp.MustCompile(`deprecated\s+([^\s"(\])]+)`)
	// aliasRHS is the name after `alias old :=`.
	aliasRHS = regexp.MustCompile(`(?s)\balias\s+(\S+)\s*:=\s*([^\s()]+)`)
	ident    = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_'!?.₀-₉]*$`)
)

func main() {
	ws := flag.String("ws", "", "workspace (declarations.parquet)")
	out := flag.String("out", "", "benchmark JSONL: query = the old full name")
	short := flag.String("short", "", "optional second benchmark: query = the old name's last component")
	split := flag.String("split", "", "write one half only (tune or held-out; the counts are of both)")
	strip := flag.String("strip", "", "directory to write declarations.parquet and informal.parquet without deprecated rows")
	flag.Parse()
	if *ws == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	decls, err := workspace.ReadTable[workspace.Declaration](filepath.Join(*ws, "declarations.parquet"))
	if err != nil {
		fail(err)
	}
	byName := map[string]*workspace.Declaration{}
	deprecated := map[string]bool{}
	for i := range decls {
		d := &decls[i]
		byName[d.Name] = d
		for _, a := range d.Attributes {
			if a == "deprecated" {
				deprecated[d.Name] = true
			}
		}
	}
	// A generated twin (to_additive) of a deprecated declaration is
	// deprecated too: Lean copies the attribute.
	for i := range decls {
		if g := decls[i].GeneratedFrom; g != nil && deprecated[*g] {
			deprecated[decls[i].Name] = true
		}
	}
	counts := map[string]int{}
	// successor resolves the name written after `deprecated` or `:=` as
	// Lean would from d's scope: _root_, the old name's own prefixes, the
	// namespace's prefixes, then the opened namespaces.
	resolve := func(d *workspace.Declaration, written string) string {
		if s, ok := strings.CutPrefix(written, "_root_."); ok {
			if byName[s] != nil {
				return s
			}
			return ""
		}
		var scopes []string
		for _, p := range []string{prefixOf(d.Name), d.Namespace} {
			for p != "" {
				scopes = append(scopes, p)
				p = prefixOf(p)
			}
		}
		scopes = append(scopes, "")
		scopes = append(scopes, d.Opens...)
		for _, s := range scopes {
			n := written
			if s != "" {
				n = s + "." + written
			}
			if byName[n] != nil {
				return n
			}
		}
		return ""
	}
	// target follows a chain of deprecations to a live declaration.
	var target func(name string, depth int) string
	target = func(name string, depth int) string {
		d := byName[name]
		if d == nil || depth > 5 {
			return ""
		}
		var written string
		if m := aliasRHS.FindStringSubmatch(d.Code); m != nil && strings.Contains(d.Code, "alias") {
			written = m[2]
		} else if m := deprecatedTarget.FindStringSubmatch(d.Code); m != nil {
			written = m[1]
		}
		if written == "" || !ident.MatchString(written) {
			return ""
		}
		n := resolve(d, written)
		if n == "" && len(d.ProofDeps) > 0 && strings.HasSuffix("."+d.ProofDeps[0], "."+written) && byName[d.ProofDeps[0]] != nil {
			n = d.ProofDeps[0] // the extractor's own resolution
		}
		if n != "" && deprecated[n] {
			return target(n, depth+1)
		}
		return n
	}
	var items, shorts []Item
	seen := map[string]bool{}
	for i := range decls {
		d := &decls[i]
		if !deprecated[d.Name] || d.GeneratedFrom != nil && !strings.Contains(d.Code, "alias") {
			continue
		}
		counts["deprecated written"]++
		if seen[d.Name] {
			counts["dropped: duplicate old name"]++
			continue
		}
		seen[d.Name] = true
		if m := aliasRHS.FindStringSubmatch(d.Code); m != nil && strings.Contains(d.Code, "alias") {
			if strings.HasPrefix(m[1], "⟨") {
				counts["dropped: iff alias ⟨…⟩"]++
				continue
			}
			if !strings.HasSuffix("."+d.Name, "."+strings.TrimPrefix(m[1], "_root_.")) {
				counts["skipped: generated twin of an alias"]++
				continue
			}
		}
		if !ident.MatchString(d.Name) || strings.Contains(d.Name, "_root_") {
			counts["dropped: old name not one identifier"]++
			continue
		}
		gold := target(d.Name, 0)
		switch {
		case gold == "":
			counts["dropped: no live successor named"]++
			continue
		case gold == d.Name:
			counts["dropped: old = new"]++
			continue
		}
		counts["pairs"]++
		half := eval.HalfOf(gold)
		items = append(items, Item{ID: "rename/" + d.Name, Query: d.Name, Gold: []string{gold}, Half: half})
		last := d.Name[strings.LastIndexByte(d.Name, '.')+1:]
		if last != d.Name {
			shorts = append(shorts, Item{ID: "rename-short/" + d.Name, Query: last, Gold: []string{gold}, Half: half})
		}
	}
	sort.Slice(items, func(a, b int) bool { return items[a].ID < items[b].ID })
	sort.Slice(shorts, func(a, b int) bool { return shorts[a].ID < shorts[b].ID })
	write(*out, items, *split)
	if *short != "" {
		write(*short, shorts, *split)
	}
	if *strip != "" {
		kept := without(decls, deprecated, func(d workspace.Declaration) string { return d.Name })
		if err := workspace.WriteTable(filepath.Join(*strip, "declarations.parquet"), kept); err != nil {
			fail(err)
		}
		inf, err := workspace.ReadTable[workspace.Informal](filepath.Join(*ws, "informal.parquet"))
		if err != nil {
			fail(err)
		}
		keptInf := without(inf, deprecated, func(r workspace.Informal) string { return r.Name })
		if err := workspace.WriteTable(filepath.Join(*strip, "informal.parquet"), keptInf); err != nil {
			fail(err)
		}
		counts["stripped declarations"] = len(decls) - len(kept)
		counts["stripped informal rows"] = len(inf) - len(keptInf)
	}
	halves := map[string]int{}
	for _, it := range items {
		halves[it.Half]++
	}
	counts["tune"], counts["held-out"], counts["short items"] = halves[eval.SplitTune], halves[eval.SplitHeldOut], len(shorts)
	b, _ := json.MarshalIndent(counts, "", "  ")
	fmt.Println(string(b))
}

func prefixOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

func write(path string, items []Item, half string) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if half != "" && it.Half != half {
			continue
		}
		if err := enc.Encode(it); err != nil {
			fail(err)
		}
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "renames:", err)
	os.Exit(1)
}

// without keeps the rows whose name is not in drop.
func without[T any](rows []T, drop map[string]bool, name func(T) string) []T {
	var kept []T
	for _, r := range rows {
		if !drop[name(r)] {
			kept = append(kept, r)
		}
	}
	return kept
}
