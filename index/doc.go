package index

import (
	"errors"
	"os"
	"strings"

	"github.com/driftkit/driftkit/dataset"
)

// RenderingVersion names the document rendering below; it is recorded in the
// index manifest so that an index built with another rendering is detected.
const RenderingVersion = "doc-v1"

// Doc is one row of index/docs.parquet: one declaration as a retrieval document.
// Row i of docs.parquet is row i of vectors.npy.
type Doc struct {
	Name   string `parquet:"name"`
	Kind   string `parquet:"kind,dict"`
	Module string `parquet:"module,dict"`
	Text   string `parquet:"text"`
	// InformalSource says where the informal part came from: a provider
	// ("rauto", "template", "openai:<model>"), "docstring", or "" for none.
	InformalSource string `parquet:"informal_source,dict"`
	// Deps are the declaration's statement dependencies (for neighbour voting).
	Deps []string `parquet:"deps,list"`
}

// Render is the document text of a declaration (rendering doc-v1):
//
//	{kind} {name} {signature}
//	{informal_name}: {informal statement, or the docstring}
//
// The second line is omitted when there is no informal text; "{informal_name}: "
// is omitted when there is no informal name. Whitespace runs in the signature
// are collapsed.
func Render(d *dataset.Declaration, inf *dataset.Informal) (text, source string) {
	var b strings.Builder
	b.WriteString(d.Kind)
	b.WriteByte(' ')
	b.WriteString(d.Name)
	if sig := strings.Join(strings.Fields(d.Signature), " "); sig != "" {
		b.WriteByte(' ')
		b.WriteString(sig)
	}
	var name, stmt string
	switch {
	case inf != nil && strings.TrimSpace(inf.InformalStatement) != "":
		name, stmt, source = inf.InformalName, inf.InformalStatement, inf.Provider
	case d.Docstring != nil && strings.TrimSpace(*d.Docstring) != "":
		stmt, source = *d.Docstring, "docstring"
	}
	if stmt != "" {
		b.WriteByte('\n')
		if name = strings.TrimSpace(name); name != "" {
			b.WriteString(name)
			b.WriteString(": ")
		}
		b.WriteString(strings.TrimSpace(stmt))
	}
	return b.String(), source
}

// declCols are the declaration columns the index reads (parquet decodes only
// these, not code or proof dependencies).
type declCols struct {
	Name          string   `parquet:"name"`
	Kind          string   `parquet:"kind,dict"`
	Module        string   `parquet:"module,dict"`
	Docstring     *string  `parquet:"docstring,optional"`
	Signature     string   `parquet:"signature"`
	StatementDeps []string `parquet:"statement_deps,list"`
}

// LoadCorpus joins a workspace's declarations with its informal rows (when
// informal.parquet exists) into documents, in declaration order. Declarations
// with an empty name are skipped; a repeated name keeps its first row.
func LoadCorpus(ws *dataset.Workspace) ([]Doc, error) {
	inf := map[string]*dataset.Informal{}
	if ws.Has(dataset.InformalFile) {
		rows, err := dataset.ReadTable[dataset.Informal](ws.Path(dataset.InformalFile))
		if err != nil {
			return nil, err
		}
		for i := range rows {
			inf[rows[i].Name] = &rows[i]
		}
	}
	if !ws.Has(dataset.DeclarationsFile) {
		return nil, &dataset.FileError{Path: ws.Path(dataset.DeclarationsFile), Row: -1, Err: errors.Join(os.ErrNotExist,
			errors.New("run `driftkit extract` or `driftkit import rauto` first"))}
	}
	var docs []Doc
	seen := map[string]bool{}
	err := dataset.EachRow(ws.Path(dataset.DeclarationsFile), func(c *declCols) error {
		d := &dataset.Declaration{Name: c.Name, Kind: c.Kind, Module: c.Module, Docstring: c.Docstring, Signature: c.Signature, StatementDeps: c.StatementDeps}
		if d.Name == "" || seen[d.Name] {
			return nil
		}
		// EachRow reuses its buffers: copy what we keep.
		name := strings.Clone(d.Name)
		seen[name] = true
		text, src := Render(d, inf[d.Name])
		deps := make([]string, len(d.StatementDeps))
		for i, p := range d.StatementDeps {
			deps[i] = strings.Clone(p)
		}
		docs = append(docs, Doc{Name: name, Kind: strings.Clone(d.Kind), Module: strings.Clone(d.Module), Text: text,
			InformalSource: strings.Clone(src), Deps: deps})
		return nil
	})
	return docs, err
}

// BuildUsage inverts statement dependencies: for each premise, the documents
// whose statement uses it, sorted by name, with their count.
func BuildUsage(docs []Doc) []dataset.Usage {
	by := map[string][]string{}
	for _, d := range docs {
		for _, p := range d.Deps {
			by[p] = append(by[p], d.Name)
		}
	}
	out := make([]dataset.Usage, 0, len(by))
	for p, u := range by {
		out = append(out, dataset.Usage{Premise: p, UsedBy: u, Count: int32(len(u))})
	}
	sortUsage(out)
	return out
}
