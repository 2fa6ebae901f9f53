// Command devbench builds theorem search's development benchmark from a
// Lean library's own text (issue #25), without any outside query set:
//
//   - the "Main results / Main definitions" bullets of module docstrings
//     ("* `Nat.Prime.dvd_mul`: a prime divides a product iff …"): the
//     description is the query, the names before it the gold; a
//     description with LaTeX ($…$) is style "latex", one with a Lean
//     expression in backticks "lean", else "natural";
//   - bold names in those bullets (**Zorn's lemma**): style "nickname";
//   - hand-written items (-hand, JSON lines with id, style, query, gold),
//     statements rewritten in each style, slogans and special cases.
//
// A description that names its own gold (its last component) is dropped:
// it would test name lookup, not search. Gold names must be declarations of
// the workspace (-ws): written partial names are resolved against the
// module's declarations, then the library's, and dropped when ambiguous.
// Every item carries its half: the parity of sha1 of the gold's module
// group (the first three components of its module: Mathlib.Algebra.Group),
// so that tuning never sees the modules held out.
//
//	go run ./internal/tools/devbench -src /work/src/mathlib-v4.29.0/Mathlib \
//	  -ws /work/ws/mathlib-v4.29.0 -hand testdata/search/dev-hand.jsonl \
//	  -out testdata/search/dev-mathlib-v4.29.0.jsonl
package main

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// item is one line of the benchmark (retrieval/eval.SearchItem's fields).
type item struct {
	ID    string   `json:"id"`
	Topic string   `json:"topic,omitempty"`
	Style string   `json:"style"`
	Half  string   `json:"half"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
}

// decls is what the workspace says about declarations.
type decls struct {
	module   map[string]string   // full name → module
	byModule map[string][]string // module → names
	suffix   map[string][]string // last component → names
}

func main() {
	src := flag.String("src", "", "library source folder (…/Mathlib)")
	ws := flag.String("ws", "", "workspace with declarations.parquet of that source")
	hand := flag.String("hand", "", "hand-written items (JSON lines: id, style, query, gold)")
	out := flag.String("out", "", "output JSONL")
	notIn := flag.String("not-in", "", "JSONL items (devbench's output on an older release, say) whose queries mined items must not resemble: a library bump's second set keeps only text written since")
	perStyle := flag.Int("per-style", 400, "at most this many mined items per style (by sha1 of the id), so that an evaluation stays minutes long")
	flag.Parse()
	if *src == "" || *ws == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: devbench -src DIR -ws WS [-hand FILE] -out FILE")
		os.Exit(2)
	}
	if err := run(*src, *ws, *hand, *out, *notIn, *perStyle); err != nil {
		fmt.Fprintln(os.Stderr, "devbench:", err)
		os.Exit(1)
	}
}

func run(src, ws, hand, out, notIn string, perStyle int) error {
	d, err := loadDecls(filepath.Join(ws, "declarations.parquet"))
	if err != nil {
		return err
	}
	var items []item
	if hand != "" {
		if items, err = readHand(hand, d); err != nil {
			return err
		}
	}
	mined, err := mine(src, d)
	if err != nil {
		return err
	}
	if notIn != "" {
		old, err := readQueries(notIn)
		if err != nil {
			return err
		}
		n := len(mined)
		mined = slices.DeleteFunc(mined, func(it item) bool { return resembles(it.Query, old) })
		fmt.Printf("%d of %d mined items resemble a query of %s: dropped\n", n-len(mined), n, notIn)
	}
	items = append(items, sample(mined, perStyle)...)
	seen := map[string]bool{}
	var kept []item
	counts := map[string]int{}
	for _, it := range items {
		key := strings.ToLower(it.Query)
		if seen[key] {
			continue
		}
		seen[key] = true
		kept = append(kept, it)
		counts[it.Style+" "+it.Half]++
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".devbench-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range kept {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf("%-22s %d\n", k, counts[k])
	}
	fmt.Printf("%d items\n", len(kept))
	return os.Rename(f.Name(), out)
}

// readQueries reads the word sets of the queries of a JSONL item file.
func readQueries(path string) ([]map[string]bool, error) {
	var out []map[string]bool
	err := eachItem(path, func(it item, _ string) error {
		out = append(out, wordSet(it.Query))
		return nil
	})
	return out, err
}

var nonWord = regexp.MustCompile(`[^\p{L}\p{N}]+`)

// wordSet is a text's lower-cased words.
func wordSet(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range nonWord.Split(strings.ToLower(text), -1) {
		if w != "" {
			out[w] = true
		}
	}
	return out
}

// resembles reports whether query shares at least 70 % of the union of its
// words with one of old's (Jaccard): a description reworded a little since
// an older release is not new text.
func resembles(query string, old []map[string]bool) bool {
	q := wordSet(query)
	for _, o := range old {
		inter := 0
		for w := range q {
			if o[w] {
				inter++
			}
		}
		if union := len(q) + len(o) - inter; union > 0 && float64(inter) >= 0.7*float64(union) {
			return true
		}
	}
	return false
}

// sample keeps at most n items of each style, the ones whose id has the
// smallest sha1, in their original order.
func sample(items []item, n int) []item {
	byStyle := map[string][]int{}
	for i, it := range items {
		byStyle[it.Style] = append(byStyle[it.Style], i)
	}
	keep := make([]bool, len(items))
	for _, idx := range byStyle {
		slices.SortFunc(idx, func(a, b int) int {
			ha, hb := sha1.Sum([]byte(items[a].ID+items[a].Query)), sha1.Sum([]byte(items[b].ID+items[b].Query))
			return bytes.Compare(ha[:], hb[:])
		})
		for _, i := range idx[:min(n, len(idx))] {
			keep[i] = true
		}
	}
	var out []item
	for i, it := range items {
		if keep[i] {
			out = append(out, it)
		}
	}
	return out
}

func loadDecls(path string) (*decls, error) {
	d := &decls{module: map[string]string{}, byModule: map[string][]string{}, suffix: map[string][]string{}}
	type row struct {
		Name   string `parquet:"name"`
		Module string `parquet:"module,dict"`
	}
	err := workspace.EachRow(path, func(r *row) error {
		d.module[r.Name] = r.Module
		d.byModule[r.Module] = append(d.byModule[r.Module], r.Name)
		last := r.Name[strings.LastIndexByte(r.Name, '.')+1:]
		d.suffix[last] = append(d.suffix[last], r.Name)
		return nil
	})
	return d, err
}

// resolve finds the declaration a written name means: the full name, else
// the one declaration of the module ending in ".name", else the one of
// the library.
func (d *decls) resolve(name, module string) (string, bool) {
	if _, ok := d.module[name]; ok {
		return name, true
	}
	var hits []string
	for _, n := range d.byModule[module] {
		if strings.HasSuffix(n, "."+name) {
			hits = append(hits, n)
		}
	}
	if len(hits) == 1 {
		return hits[0], true
	}
	if len(hits) > 1 {
		return "", false
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	for _, n := range d.suffix[last] {
		if strings.HasSuffix(n, "."+name) {
			hits = append(hits, n)
		}
	}
	if len(hits) == 1 {
		return hits[0], true
	}
	return "", false
}

// halfOf is the half of a module's group.
func halfOf(module string) (group, half string) {
	parts := strings.Split(module, ".")
	group = strings.Join(parts[:min(3, len(parts))], ".")
	if sha1.Sum([]byte(group))[sha1.Size-1]&1 == 0 {
		return group, "tune"
	}
	return group, "held-out"
}

func readHand(path string, d *decls) ([]item, error) {
	var out []item
	err := eachItem(path, func(it item, where string) error {
		if it.ID == "" || it.Query == "" || len(it.Gold) == 0 || !styles[it.Style] {
			return fmt.Errorf("%s: want id, query, gold and a style of %v", where, slices.Sorted(func(y func(string) bool) {
				for s := range styles {
					if !y(s) {
						return
					}
				}
			}))
		}
		for _, g := range it.Gold {
			if _, ok := d.module[g]; !ok {
				return fmt.Errorf("%s: gold %s is not a declaration of the workspace", where, g)
			}
		}
		it.Topic, it.Half = halfOf(d.module[it.Gold[0]])
		out = append(out, it)
		return nil
	})
	return out, err
}

// eachItem calls f with each item of a JSON-lines file and its position
// (FILE:LINE, for errors).
func eachItem(path string, f func(it item, where string) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, i+1)
		var it item
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		if err := f(it, where); err != nil {
			return err
		}
	}
	return nil
}

var styles = map[string]bool{"lean": true, "latex": true, "natural": true, "slogan": true, "nickname": true, "special": true}

var (
	docBlock   = regexp.MustCompile(`(?s)/-!(.*?)-/`)
	bulletHead = regexp.MustCompile(`^\s*(?:[*+-]|\d+\.)\s+`)
	tick       = regexp.MustCompile("`([^`]+)`")
	bold       = regexp.MustCompile(`\*\*([^*]{3,60})\*\*`)
	identRe    = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_'.!?₀-₉ₐ-ₜ]*$`)
	// leading: the bullet's names, then a separator, then the description.
	leading = regexp.MustCompile("^((?:(?:the|The)?[^`:]{0,40}`[^`]+`\\s*(?:,|and|or)?\\s*)+)\\s*(?::|-|–|—|is|states)\\s+(.*)$")
)

// mine reads the module docstrings of every .lean file under src.
func mine(src string, d *decls) ([]item, error) {
	var out []item
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".lean") {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(src), path)
		module := strings.ReplaceAll(strings.TrimSuffix(rel, ".lean"), string(filepath.Separator), ".")
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range docBlock.FindAllStringSubmatch(string(b), -1) {
			for n, bl := range bullets(m[1]) {
				out = append(out, bulletItems(bl, module, n, d)...)
			}
		}
		return nil
	})
	return out, err
}

// bullets splits a docstring into list items, continuation lines joined.
func bullets(doc string) []string {
	var out []string
	cur := ""
	flush := func() {
		if cur != "" {
			out = append(out, strings.Join(strings.Fields(cur), " "))
		}
		cur = ""
	}
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case bulletHead.MatchString(line):
			flush()
			cur = bulletHead.ReplaceAllString(line, "")
		case strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#"):
			flush()
		case cur != "":
			cur += " " + line
		}
	}
	flush()
	return out
}

// bulletItems makes the items of one bullet: its description (natural,
// latex or lean style) and its bold names (nickname).
func bulletItems(bl, module string, n int, d *decls) []item {
	m := leading.FindStringSubmatch(bl)
	if m == nil {
		return nil
	}
	var gold []string
	for _, t := range tick.FindAllStringSubmatch(m[1], -1) {
		if !identRe.MatchString(t[1]) {
			return nil
		}
		g, ok := d.resolve(t[1], module)
		if !ok {
			return nil
		}
		gold = append(gold, g)
	}
	if len(gold) == 0 || len(gold) > 3 {
		return nil
	}
	group, half := halfOf(d.module[gold[0]])
	id := fmt.Sprintf("dev/%s/%d", module, n)
	var out []item
	for k, b := range bold.FindAllStringSubmatch(bl, -1) {
		q := strings.TrimSpace(b[1])
		if n := len(strings.Fields(q)); n >= 2 && n <= 6 && !namesGold(q, gold) {
			out = append(out, item{ID: fmt.Sprintf("%s/nickname/%d", id, k), Topic: group, Style: "nickname", Half: half, Query: q, Gold: gold})
		}
	}
	desc := strings.TrimSpace(bold.ReplaceAllString(m[2], "$1"))
	desc = strings.TrimRight(desc, ".;, ")
	if len(strings.Fields(desc)) < 5 || len(desc) > 400 || namesGold(desc, gold) {
		return out
	}
	return append(out, item{ID: id, Topic: group, Style: styleOf(desc), Half: half, Query: desc, Gold: gold})
}

// namesGold reports whether text writes a gold name's last component.
func namesGold(text string, gold []string) bool {
	for _, g := range gold {
		last := g[strings.LastIndexByte(g, '.')+1:]
		if len(last) > 2 && strings.Contains(text, last) {
			return true
		}
	}
	return false
}

// styleOf classifies a description: LaTeX, a Lean expression in backticks
// (an operator or a non-ASCII symbol between them), or natural language.
func styleOf(desc string) string {
	if strings.Contains(desc, "$") || strings.Contains(desc, "\\(") {
		return "latex"
	}
	for _, t := range tick.FindAllStringSubmatch(desc, -1) {
		if !identRe.MatchString(t[1]) && strings.ContainsAny(t[1], "=≤<≥>∣+*^∈⊆∑∏∫→↔∀∃⁻¹‖|∘⊔⊓") {
			return "lean"
		}
	}
	return "natural"
}
