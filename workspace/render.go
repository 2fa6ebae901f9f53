package workspace

import (
	"runtime"
	"strings"
	"sync"
)

// RenderingVersion names the document rendering of Render. It is recorded in
// the index manifest and in every encoder spec, so that vectors of documents
// rendered another way are never mixed with these, and the FlagEmbedding
// export fine-tunes on exactly the texts the index embeds.
const RenderingVersion = "doc-v1"

// Document is one declaration as a retrieval document: one row of
// index/docs.parquet (row i of docs.parquet is row i of vectors.npy and
// document i of every backend). Text is what encoders and BM25 see; the other
// columns are what a consumer shows or puts in a prompt (retrieval.Entry).
type Document struct {
	Name    string `parquet:"name"`
	Kind    string `parquet:"kind,dict"`
	Module  string `parquet:"module,dict"`
	Library string `parquet:"library,dict"`
	// Text is the rendered document (Render).
	Text string `parquet:"text"`
	// Signature is the declaration's signature as written (whitespace kept).
	Signature string `parquet:"signature"`
	// InformalName and InformalStatement are the informal text Render used:
	// an informal row's, or the docstring as the statement.
	InformalName      string `parquet:"informal_name"`
	InformalStatement string `parquet:"informal_statement"`
	// InformalSource says where the informal part came from: a provider
	// ("rauto", "template", "openai:<model>"), "docstring", or "" for none.
	InformalSource string `parquet:"informal_source,dict"`
	// Deps are the declaration's statement dependencies, in order of first
	// use (neighbour voting and the usage graph).
	Deps []string `parquet:"deps,list"`
	// Generated is whether the declaration was generated from another
	// (declarations.parquet's generated_from: constructors, projections,
	// to_additive twins, simps/ext/mk_iff lemmas, derived instances,
	// aliases, where-auxiliaries). It is not written to docs.parquet: it
	// only keeps such rows out of the usage counts (index.BuildUsage).
	Generated bool `parquet:"-"`
}

// Render is the document text of a declaration (rendering doc-v1):
//
//	{kind} {name} {signature}
//	{informal_name}: {informal statement, or the docstring}
//
// The second line is omitted when there is no informal text; "{informal_name}: "
// is omitted when there is no informal name. Whitespace runs in the signature
// are collapsed.
func Render(d *Declaration, inf *Informal) (text, source string) {
	text, _, _, source = render(d, inf)
	return text, source
}

// render is Render returning the informal name and statement it used too.
func render(d *Declaration, inf *Informal) (text, name, stmt, source string) {
	switch {
	case inf != nil && strings.TrimSpace(inf.InformalStatement) != "":
		name, stmt, source = inf.InformalName, inf.InformalStatement, inf.Provider
	case d.Docstring != nil && strings.TrimSpace(*d.Docstring) != "":
		stmt, source = *d.Docstring, "docstring"
	}
	name, stmt = strings.TrimSpace(name), strings.TrimSpace(stmt)
	// One allocation of at most the text's size (the signature's
	// whitespace runs only shrink).
	var b strings.Builder
	b.Grow(len(d.Kind) + 1 + len(d.Name) + 1 + len(d.Signature) + 1 + len(name) + 2 + len(stmt))
	b.WriteString(d.Kind)
	b.WriteByte(' ')
	b.WriteString(d.Name)
	// The signature's fields joined by single spaces.
	for f := range strings.FieldsSeq(d.Signature) {
		b.WriteByte(' ')
		b.WriteString(f)
	}
	if stmt != "" {
		b.WriteByte('\n')
		if name != "" {
			b.WriteString(name)
			b.WriteString(": ")
		}
		b.WriteString(stmt)
	}
	return b.String(), name, stmt, source
}

// RenderDocument is the retrieval document of a declaration.
func RenderDocument(d *Declaration, inf *Informal) Document {
	text, name, stmt, src := render(d, inf)
	return Document{Name: d.Name, Kind: d.Kind, Module: d.Module, Library: d.Library, Text: text, Signature: d.Signature,
		InformalName: name, InformalStatement: stmt, InformalSource: src, Deps: d.StatementDeps}
}

// declDocCols are the declaration columns LoadDocuments reads (parquet
// decodes only these, not code or proof dependencies).
type declDocCols struct {
	Library       string   `parquet:"library,dict"`
	Name          string   `parquet:"name"`
	Kind          string   `parquet:"kind,dict"`
	Module        string   `parquet:"module,dict"`
	Docstring     *string  `parquet:"docstring,optional"`
	Signature     string   `parquet:"signature"`
	StatementDeps []string `parquet:"statement_deps,list"`
	GeneratedFrom *string  `parquet:"generated_from,optional"`
}

// generatedMark stands for any generated_from value in declDocCols.
var generatedMark string

// LoadDocuments joins a workspace's declarations with its informal rows (when
// informal.parquet exists) into retrieval documents, in declaration order.
// Declarations with an empty name are skipped; a repeated name keeps its
// first row.
//
// The informal rows are read while the declarations are, and the documents
// rendered on every core (index builds wait for this before anything else,
// #29).
func LoadDocuments(ws *Workspace) ([]Document, error) {
	var inf map[string]*Informal
	var infErr error
	var wg sync.WaitGroup
	if ws.Has(InformalFile) {
		wg.Go(func() {
			rows, err := ReadTable[Informal](ws.Path(InformalFile))
			if err != nil {
				infErr = err
				return
			}
			inf = make(map[string]*Informal, len(rows))
			for i := range rows {
				inf[rows[i].Name] = &rows[i]
			}
		})
	}
	if !ws.Has(DeclarationsFile) {
		wg.Wait()
		if infErr != nil {
			return nil, infErr
		}
		return nil, ws.Missing(DeclarationsFile, "declarations")
	}
	var decls []declDocCols
	seen := map[string]bool{}
	// Library, kind and module repeat from row to row: one copy of each.
	shared := map[string]string{}
	share := func(s string) string {
		if t, ok := shared[s]; ok {
			return t
		}
		t := strings.Clone(s)
		shared[t] = t
		return t
	}
	err := EachRow(ws.Path(DeclarationsFile), func(c *declDocCols) error {
		if c.Name == "" || seen[c.Name] {
			return nil
		}
		// EachRow reuses its buffers: copy what we keep.
		d := declDocCols{Library: share(c.Library), Name: strings.Clone(c.Name), Kind: share(c.Kind),
			Module: share(c.Module), Signature: strings.Clone(c.Signature), StatementDeps: make([]string, len(c.StatementDeps))}
		if c.GeneratedFrom != nil {
			d.GeneratedFrom = &generatedMark // only whether it is set is read
		}
		if c.Docstring != nil {
			d.Docstring = new(strings.Clone(*c.Docstring))
		}
		for i, p := range c.StatementDeps {
			d.StatementDeps[i] = strings.Clone(p)
		}
		seen[d.Name] = true
		decls = append(decls, d)
		return nil
	})
	wg.Wait()
	if infErr != nil {
		return nil, infErr
	}
	if err != nil {
		return nil, err
	}
	docs := make([]Document, len(decls))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(decls)/1024))
	for w := range workers {
		wg.Go(func() {
			for i := w * len(decls) / workers; i < (w+1)*len(decls)/workers; i++ {
				c := &decls[i]
				d := Declaration{Library: c.Library, Name: c.Name, Kind: c.Kind, Module: c.Module, Docstring: c.Docstring,
					Signature: c.Signature, StatementDeps: c.StatementDeps}
				docs[i] = RenderDocument(&d, inf[c.Name])
				docs[i].Generated = c.GeneratedFrom != nil
			}
		})
	}
	wg.Wait()
	return docs, nil
}

// proofDepCols are the declaration columns ProofUses reads.
type proofDepCols struct {
	Name          string   `parquet:"name"`
	ProofDeps     []string `parquet:"proof_deps,list"`
	GeneratedFrom *string  `parquet:"generated_from,optional"`
}

// ProofUses counts, for each name, the declarations whose proof uses it
// (declarations.parquet's proof_deps): a usage count for lemmas, which
// statements seldom name. A repeated declaration counts once (its first
// row, as LoadDocuments), and so does a name a proof uses twice. A
// generated declaration uses nothing (see Document.Generated).
func ProofUses(ws *Workspace) (map[string]int32, error) {
	if !ws.Has(DeclarationsFile) {
		return nil, ws.Missing(DeclarationsFile, "declarations")
	}
	uses := map[string]int32{}
	seen := map[string]bool{}
	row := map[string]bool{}
	err := EachRow(ws.Path(DeclarationsFile), func(c *proofDepCols) error {
		if c.Name == "" || seen[c.Name] {
			return nil
		}
		seen[strings.Clone(c.Name)] = true
		if c.GeneratedFrom != nil {
			return nil // not a user: see Document.Generated
		}
		clear(row)
		for _, d := range c.ProofDeps {
			if !row[d] {
				row[d] = true
				if _, ok := uses[d]; ok {
					uses[d]++
				} else {
					uses[strings.Clone(d)] = 1
				}
			}
		}
		return nil
	})
	return uses, err
}
