// Command typednames makes theorem-search queries that type a declaration's
// name inside a sentence, from the library's own text (issue #25): a
// docstring's first sentence that writes exactly one backquoted identifier
// (5 to 30 words) gets that identifier replaced by a declaration's full
// name — half of them names a tokenizer alters (a prime, a subscript, ! or
// ?), half plain; of each four, two backquoted and two bare — and the
// declaration is the gold. devbench drops every description that names its
// gold, so without these the reranker's training queries never show a
// typed name that is the answer (README, "Reranker"). Declarations and
// sentences come from one half of the library's module groups (devbench's
// split: parity of sha1 of the first three module components), so that a
// set made from the held-out half tests what the tune half trained.
//
//	go run ./internal/tools/typednames -ws WS -half tune -seed 11 -n 400 > typed-tune.jsonl
package main

import (
	"bufio"
	"crypto/sha1"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

type row struct {
	Name          string  `parquet:"name"`
	Kind          string  `parquet:"kind,dict"`
	Module        string  `parquet:"module,dict"`
	Docstring     *string `parquet:"docstring,optional"`
	GeneratedFrom *string `parquet:"generated_from,optional"`
}

// item is one output line (eval search's and the rerank trainer's fields).
type item struct {
	ID    string   `json:"id"`
	Half  string   `json:"half"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Style string   `json:"style"`
}

var (
	tick    = regexp.MustCompile("`([^`]+)`")
	identRe = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_'.!?₀-₉ₐ-ₜ]*$`)
)

func main() {
	ws := flag.String("ws", "", "workspace with declarations.parquet")
	half := flag.String("half", "tune", "module-group half the names and sentences come from: tune or held-out")
	seed := flag.Int64("seed", 11, "random seed")
	n := flag.Int("n", 400, "queries")
	flag.Parse()
	if *ws == "" || (*half != "tune" && *half != "held-out") || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: typednames -ws WS [-half tune|held-out] [-seed N] [-n 400] > FILE")
		os.Exit(2)
	}
	if err := run(*ws, *half, *seed, *n); err != nil {
		fmt.Fprintln(os.Stderr, "typednames:", err)
		os.Exit(1)
	}
}

func run(ws, half string, seed int64, n int) error {
	var plain, odd, sents []string
	err := workspace.EachRow(ws+"/declarations.parquet", func(r *row) error {
		if r.GeneratedFrom != nil || halfOf(r.Module) != half {
			return nil
		}
		if r.Kind == "theorem" || r.Kind == "definition" {
			if strings.ContainsAny(r.Name, "'₀₁₂₃₄₅₆₇₈₉!?") {
				odd = append(odd, r.Name)
			} else {
				plain = append(plain, r.Name)
			}
		}
		if r.Docstring != nil {
			if s, ok := sentence(*r.Docstring); ok {
				sents = append(sents, s)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(plain) == 0 || len(odd) == 0 || len(sents) == 0 {
		return fmt.Errorf("half %s: %d plain names, %d altered, %d sentences", half, len(plain), len(odd), len(sents))
	}
	rng := rand.New(rand.NewSource(seed))
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range n {
		pool := plain
		if i%2 == 0 {
			pool = odd
		}
		name := pool[rng.Intn(len(pool))]
		s := sents[rng.Intn(len(sents))]
		quoted := i%4 < 2
		style := "bare"
		if quoted {
			style = "backquoted"
		}
		if err := enc.Encode(item{ID: fmt.Sprintf("ts-%s-%d", half, i), Half: half, Query: paste(s, name, quoted), Gold: []string{name}, Style: style}); err != nil {
			return err
		}
	}
	return w.Flush()
}

// sentence is a docstring's first sentence, spaces collapsed, when it has
// 5 to 30 words and exactly one backquoted span, an identifier.
func sentence(doc string) (string, bool) {
	d := strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(d, ". "); i > 0 {
		d = d[:i]
	}
	m := tick.FindAllStringSubmatch(d, -1)
	words := len(strings.Fields(d))
	return d, len(m) == 1 && identRe.MatchString(m[0][1]) && words >= 5 && words <= 30
}

// paste writes name in place of the sentence's backquoted identifier,
// backquoted or bare.
func paste(s, name string, quoted bool) string {
	repl := name
	if quoted {
		repl = "`" + name + "`"
	}
	return tick.ReplaceAllLiteralString(s, repl)
}

// halfOf is devbench's half of a module's group.
func halfOf(module string) string {
	parts := strings.Split(module, ".")
	group := strings.Join(parts[:min(3, len(parts))], ".")
	if sha1.Sum([]byte(group))[sha1.Size-1]&1 == 0 {
		return "tune"
	}
	return "held-out"
}
