package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/driftkit/driftkit/workspace"
)

// File names inside WS/export/hf/.
const (
	HFDir      = "hf"
	HFCardFile = "README.md"
	HFDataDir  = "data"
)

// HFOptions configure the Hugging Face export.
type HFOptions struct {
	// License is an SPDX-style identifier as the Hub spells it (apache-2.0,
	// mit, cc-by-4.0, …). Required: the data's licence is the library's.
	License string
	// PrettyName is the card title (default "<library> declarations, informal
	// statements and retrieval pairs").
	PrettyName string
	// ShardRows bounds the rows per Parquet shard (default 50,000).
	ShardRows int
	Force     bool
}

// HFStats counts what the Hugging Face export wrote.
type HFStats struct {
	Dir    string
	Rows   map[string]int64 // "config/split" → rows
	Shards map[string]int   // config → shard files
}

// ErrLicense is returned for a missing or malformed licence identifier.
var ErrLicense = errors.New("a licence identifier is required, as the Hugging Face Hub spells it (e.g. apache-2.0)")

var licenseRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]*$`)

// HF splits of pairs, by the pairs table's split names.
var hfSplit = map[string]string{workspace.SplitTrain: "train", workspace.SplitValid: "validation", workspace.SplitTest: "test"}

// HuggingFace writes WS/export/hf/: a dataset card (README.md with YAML front
// matter: configs declarations, informal and pairs, licence, provenance) and
// data/<config>/<split>-NNNNN-of-NNNNN.parquet shards. The folder is built
// beside the old one and swapped in, with the manifest entry, when complete
// (one workspace.Txn).
func HuggingFace(ctx context.Context, ws *workspace.Workspace, opts HFOptions) (*HFStats, error) {
	opts.License = strings.ToLower(strings.TrimSpace(opts.License))
	if opts.License == "" || !licenseRE.MatchString(opts.License) {
		return nil, fmt.Errorf("%w: got %q", ErrLicense, opts.License)
	}
	if opts.ShardRows <= 0 {
		opts.ShardRows = 50000
	}
	relCard := filepath.ToSlash(filepath.Join(workspace.ExportDir, HFDir, HFCardFile))
	unlock, err := ws.Lock("export hf")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, relCard); err != nil {
		return nil, err
	}
	if !ws.Has(workspace.DeclarationsFile) {
		return nil, ws.Missing(workspace.DeclarationsFile, "declarations")
	}
	run := ws.StartRun("export hf", map[string]any{"license": opts.License, "shard_rows": opts.ShardRows})
	final := ws.Path(workspace.ExportDir, HFDir)
	relDir := filepath.ToSlash(filepath.Join(workspace.ExportDir, HFDir))
	tx := ws.Begin("export hf")
	defer tx.Abort()
	// The folder is built beside the old one and replaces it as a whole.
	tmp, err := tx.TempDir(relDir)
	if err != nil {
		return nil, err
	}
	st := &HFStats{Dir: final, Rows: map[string]int64{}, Shards: map[string]int{}}
	prov := &provenance{Libraries: map[string]int64{}, Revisions: map[string]int64{}, Kinds: map[string]int64{},
		Providers: map[string]int64{}, Prompts: map[string]int64{}, Sources: map[string]int64{}}
	t0 := time.Now()

	// declarations
	if err := run.Input(workspace.DeclarationsFile); err != nil {
		return nil, err
	}
	n, err := shard(ctx, tmp, "declarations", "train", ws.Path(workspace.DeclarationsFile), opts.ShardRows, st,
		func(d *workspace.Declaration) bool {
			prov.Libraries[d.Library]++
			prov.Revisions[d.Library+"@"+d.Revision]++
			prov.Kinds[d.Kind]++
			if d.Docstring != nil {
				prov.Docstrings++
			}
			return true
		})
	if err != nil {
		return nil, err
	}
	prov.Declarations = n
	configs := []string{"declarations"}
	splits := map[string][]string{"declarations": {"train"}}

	if ws.Has(workspace.InformalFile) {
		if err := run.Input(workspace.InformalFile); err != nil {
			return nil, err
		}
		n, err := shard(ctx, tmp, "informal", "train", ws.Path(workspace.InformalFile), opts.ShardRows, st,
			func(r *workspace.Informal) bool {
				prov.Providers[r.Provider]++
				prov.Prompts[r.PromptVersion]++
				prov.PromptTokens += r.PromptTokens
				prov.CompletionTokens += r.CompletionTokens
				return true
			})
		if err != nil {
			return nil, err
		}
		prov.Informal = n
		configs = append(configs, "informal")
		splits["informal"] = []string{"train"}
	}
	if ws.Has(workspace.PairsFile) {
		if err := run.Input(workspace.PairsFile); err != nil {
			return nil, err
		}
		var have []string
		for _, sp := range []string{workspace.SplitTrain, workspace.SplitValid, workspace.SplitTest} {
			n, err := shard(ctx, tmp, "pairs", hfSplit[sp], ws.Path(workspace.PairsFile), opts.ShardRows, st,
				func(p *workspace.Pair) bool {
					if p.Split == sp {
						prov.Sources[p.QuerySource]++
					}
					return p.Split == sp
				})
			if err != nil {
				return nil, err
			}
			if n > 0 {
				have = append(have, hfSplit[sp])
			}
			prov.Pairs += n
		}
		if len(have) > 0 {
			configs = append(configs, "pairs")
			splits["pairs"] = have
		}
	}
	run.Phase("shards", time.Since(t0))
	if m, err := ws.ReadManifest(); err == nil {
		if r := m.LastRun("mine"); r != nil {
			prov.Mine, prov.Benchmarks = publicRun(ws, r)
		}
	}
	card := Card(opts, configs, splits, prov)
	if p := ws.LeakedPath(card); p != "" {
		return nil, fmt.Errorf("the dataset card would publish the path %s of this machine (a bug: please report it)", p)
	}
	if err := workspace.WriteFileAtomic(filepath.Join(tmp, HFCardFile), []byte(card)); err != nil {
		return nil, err
	}
	tx.Output(relCard, 0)
	err = filepath.WalkDir(filepath.Join(tmp, HFDataDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tmp, p)
		tx.Output(relDir+"/"+filepath.ToSlash(rel), 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, v := range st.Rows {
		run.Count(k, v)
	}
	if prov.Providers["template"] > 0 {
		run.Note(fmt.Sprintf("%d informal rows come from the offline template fallback", prov.Providers["template"]))
	}
	return st, tx.Commit(run)
}

// shard copies the rows of a table that keep accepts into
// dir/data/<config>/<split>-NNNNN-of-NNNNN.parquet files of at most rows rows.
// The total is known only at the end, so shards are renamed then.
func shard[T any](ctx context.Context, dir, config, split, src string, rows int, st *HFStats, keep func(*T) bool) (int64, error) {
	out := filepath.Join(dir, HFDataDir, config)
	var (
		w     *workspace.Writer[T]
		parts []string
		n     int64
	)
	closeShard := func() error {
		if w == nil {
			return nil
		}
		err := w.Close()
		w = nil
		return err
	}
	err := workspace.EachRow(src, func(r *T) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !keep(r) {
			return nil
		}
		if w == nil {
			p := filepath.Join(out, fmt.Sprintf(".%s-%05d.parquet", split, len(parts)))
			var err error
			if w, err = workspace.NewWriter[T](p); err != nil {
				return err
			}
			parts = append(parts, p)
		}
		if err := w.Write(*r); err != nil {
			return err
		}
		n++
		if w.Rows() >= int64(rows) {
			return closeShard()
		}
		return nil
	})
	if err != nil {
		if w != nil {
			w.Abort()
		}
		return 0, err
	}
	if err := closeShard(); err != nil {
		return 0, err
	}
	for i, p := range parts {
		name := filepath.Join(out, fmt.Sprintf("%s-%05d-of-%05d.parquet", split, i, len(parts)))
		if err := os.Rename(p, name); err != nil {
			return 0, err
		}
	}
	if n > 0 {
		st.Rows[config+"/"+split] = n
		st.Shards[config] += len(parts)
	}
	return n, nil
}

// provenance is what the card says about where the data comes from.
type provenance struct {
	Declarations, Informal, Pairs  int64
	Docstrings                     int64
	Libraries, Revisions, Kinds    map[string]int64
	Providers, Prompts, Sources    map[string]int64
	PromptTokens, CompletionTokens int64
	// Mine is the last mine run as the card may show it (publicRun);
	// Benchmarks the files its decontamination excluded.
	Mine       *workspace.Run
	Benchmarks []workspace.FileRef
}

// publicRun is a manifest entry as a public card may show it: parameters
// and notes name files relative to the workspace or by file name
// (Workspace.ScrubPaths), never by the exporting machine's folders; the
// benchmark files that mine's --exclude named are returned by file name with
// their sha256 and size, which identify them anywhere.
func publicRun(ws *workspace.Workspace, r *workspace.Run) (*workspace.Run, []workspace.FileRef) {
	out := *r
	out.Parameters = map[string]any{}
	for k, v := range r.Parameters {
		out.Parameters[k] = ws.ScrubValue(v)
	}
	out.Notes = make([]string, len(r.Notes))
	for i, n := range r.Notes {
		out.Notes[i] = ws.ScrubPaths(n)
	}
	excluded := map[string]bool{}
	switch ex := r.Parameters["exclude"].(type) {
	case []any:
		for _, e := range ex {
			if s, ok := e.(string); ok {
				excluded[s] = true
			}
		}
	case []string:
		for _, s := range ex {
			excluded[s] = true
		}
	}
	var bench []workspace.FileRef
	for _, in := range r.Inputs {
		if excluded[in.Path] {
			bench = append(bench, workspace.FileRef{Path: ws.PublicPath(in.Path), SHA256: in.SHA256, Bytes: in.Bytes})
		}
	}
	out.Inputs, out.Outputs = nil, nil
	return &out, bench
}

func countList(m map[string]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	var parts []string
	for _, k := range keys {
		label := k
		if label == "" {
			label = "(none)"
		}
		if k == "template" {
			label = "template (offline fallback, not an LLM)"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", label, m[k]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}

func yamlStr(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a valid YAML scalar
	return string(b)
}

func sizeCategory(n int64) string {
	switch {
	case n < 1000:
		return "n<1K"
	case n < 10000:
		return "1K<n<10K"
	case n < 100000:
		return "10K<n<100K"
	case n < 1000000:
		return "100K<n<1M"
	}
	return "1M<n<10M"
}

// Card renders the dataset card: YAML front matter the Hub and
// datasets.load_dataset read (configs, licence), then provenance and schemas.
func Card(opts HFOptions, configs []string, splits map[string][]string, p *provenance) string {
	libs := slices.Sorted(maps.Keys(p.Libraries))
	title := opts.PrettyName
	if title == "" {
		title = strings.Join(libs, ", ") + " declarations, informal statements and retrieval pairs"
	}
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "license: %s\n", opts.License)
	fmt.Fprintf(&b, "pretty_name: %s\n", yamlStr(title))
	b.WriteString("language:\n- en\n")
	b.WriteString("tags:\n- lean4\n- formal-mathematics\n- autoformalization\n- premise-retrieval\n- driftkit\n")
	b.WriteString("task_categories:\n- text-retrieval\n")
	fmt.Fprintf(&b, "size_categories:\n- %s\n", sizeCategory(p.Declarations))
	b.WriteString("configs:\n")
	for _, c := range configs {
		fmt.Fprintf(&b, "- config_name: %s\n", c)
		if c == "pairs" || (c == configs[0] && !slices.Contains(configs, "pairs")) {
			b.WriteString("  default: true\n")
		}
		b.WriteString("  data_files:\n")
		for _, sp := range splits[c] {
			fmt.Fprintf(&b, "  - split: %s\n    path: %s/%s/%s-*.parquet\n", sp, HFDataDir, c, sp)
		}
	}
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n", title)
	b.WriteString("Lean 4 declarations with informal statements and dependency-retrieval training pairs, " +
		"written by [driftkit](https://github.com/driftkit/driftkit) (`driftkit export hf`).\n\n")
	if p.Providers["template"] > 0 {
		fmt.Fprintf(&b, "> **Note:** %d of %d informal statements come from driftkit's offline *template* "+
			"fallback (rendered from the signature, not written by a language model).\n\n", p.Providers["template"], p.Informal)
	}
	b.WriteString("## Provenance\n\n| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| libraries | %s |\n", countList(p.Libraries))
	fmt.Fprintf(&b, "| revisions | %s |\n", countList(p.Revisions))
	fmt.Fprintf(&b, "| driftkit version | %s |\n", workspace.Version)
	fmt.Fprintf(&b, "| informal providers | %s |\n", countList(p.Providers))
	fmt.Fprintf(&b, "| prompt versions | %s |\n", countList(p.Prompts))
	if p.PromptTokens+p.CompletionTokens > 0 {
		fmt.Fprintf(&b, "| LLM tokens | %d prompt, %d completion |\n", p.PromptTokens, p.CompletionTokens)
	}
	fmt.Fprintf(&b, "| pair query sources | %s |\n", countList(p.Sources))
	if p.Mine != nil {
		params, _ := json.Marshal(p.Mine.Parameters)
		fmt.Fprintf(&b, "| mining parameters | `%s` |\n", strings.ReplaceAll(string(params), "|", "\\|"))
		if len(p.Mine.Notes) > 0 {
			fmt.Fprintf(&b, "| mining notes | %s |\n", strings.ReplaceAll(strings.Join(p.Mine.Notes, "; "), "|", "\\|"))
		}
		if len(p.Benchmarks) > 0 {
			var bs []string
			for _, f := range p.Benchmarks {
				bs = append(bs, fmt.Sprintf("`%s` (sha256 `%s`, %d bytes)", f.Path, f.SHA256, f.Bytes))
			}
			fmt.Fprintf(&b, "| decontamination benchmarks | %s |\n", strings.ReplaceAll(strings.Join(bs, "; "), "|", "\\|"))
		}
	}
	b.WriteString("\n## Counts\n\n| config | rows |\n|---|---|\n")
	fmt.Fprintf(&b, "| declarations | %d (%d with a docstring; kinds: %s) |\n", p.Declarations, p.Docstrings, countList(p.Kinds))
	fmt.Fprintf(&b, "| informal | %d |\n", p.Informal)
	fmt.Fprintf(&b, "| pairs | %d |\n", p.Pairs)
	b.WriteString(`
## Configs

- **declarations**: one row per Lean declaration: ` + "`library, revision, name, kind, keyword, module, path, line_start, line_end, namespace, opens, modifiers, attributes, docstring, signature, code, statement_deps, proof_deps, generated_from`" + `. ` + "`statement_deps`" + ` are the resolved names the statement (signature) uses.
- **informal**: an informal name and statement per declaration: ` + "`name, informal_name, informal_statement, provider, prompt_version, input_sha256, prompt_tokens, completion_tokens, created_at`" + `.
- **pairs**: dependency-retrieval examples: ` + "`query_id, query, query_source, theorem, positives, negatives, split, negative_sources`" + `. The query is an informal statement or a docstring of ` + "`theorem`" + `; positives are the premises its statement uses; negatives are hard negatives ranked by the index, positives removed, and where too few exist random premise candidates: ` + "`negative_sources`" + ` labels each negative ` + "`mined` or `random`" + `. Splits are by module (no module is in two splits).

## Loading

` + "```python\nfrom datasets import load_dataset\npairs = load_dataset(\"path/to/this/folder\", \"pairs\")\n```\n")
	return b.String()
}
