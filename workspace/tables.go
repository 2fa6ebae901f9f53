// Package workspace is the contract between driftkit's stages: the tables
// every stage shares (Go structs with their Parquet schemas, streaming
// readers and writers), rendering of declarations as text, the workspace
// manifest, atomic stage commits (Txn), per-part locks and owned
// temporaries. It is the bottom layer a stage writes through, so it depends
// on no other package of the project but internal utilities.
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// Kinds of declarations, as recorded in Declaration.Kind. Dependency retrieval
// treats every kind except the theorem-like ones as a premise candidate.
const (
	KindTheorem     = "theorem"
	KindDefinition  = "definition"
	KindAbbrev      = "abbrev"
	KindInstance    = "instance"
	KindStructure   = "structure"
	KindClass       = "class"
	KindInductive   = "inductive"
	KindConstructor = "constructor"
	KindProjection  = "projection"
	KindAxiom       = "axiom"
	KindOpaque      = "opaque"
)

// kinds is every valid Declaration.Kind in a stable order (Kinds, IsKind).
var kinds = []string{
	KindTheorem, KindDefinition, KindAbbrev, KindInstance, KindStructure, KindClass,
	KindInductive, KindConstructor, KindProjection, KindAxiom, KindOpaque,
}

// Kinds lists every valid Declaration.Kind in a stable order (a copy: the
// list is the contract's, not the caller's to change).
func Kinds() []string { return slices.Clone(kinds) }

// IsKind reports whether k is a valid Declaration.Kind.
func IsKind(k string) bool { return slices.Contains(kinds, k) }

// IsPremiseKind reports whether declarations of this kind are candidates for
// statement-dependency retrieval. Statements mention definitions, structures and
// classes; theorems are proof premises, not statement premises.
func IsPremiseKind(kind string) bool {
	return kind != KindTheorem && kind != "" && kind != KindInstance
}

// Declaration is one row of declarations.parquet: one Lean declaration, either
// written in the sources or generated from one (constructors, projections,
// to_additive twins, aliases, where-auxiliaries).
type Declaration struct {
	Library    string   `parquet:"library,dict"`
	Revision   string   `parquet:"revision,dict"`
	Name       string   `parquet:"name"`
	Kind       string   `parquet:"kind,dict"`
	Keyword    string   `parquet:"keyword,dict"`
	Module     string   `parquet:"module,dict"`
	Path       string   `parquet:"path,dict"`
	LineStart  int32    `parquet:"line_start"`
	LineEnd    int32    `parquet:"line_end"`
	Namespace  string   `parquet:"namespace,dict"`
	Opens      []string `parquet:"opens,list"`
	Modifiers  []string `parquet:"modifiers,list"`
	Attributes []string `parquet:"attributes,list"`
	// Docstring is nil when the declaration has no /-- -/ comment; an empty
	// docstring is distinct from a missing one.
	Docstring *string `parquet:"docstring,optional"`
	Signature string  `parquet:"signature"`
	Code      string  `parquet:"code"`
	// StatementDeps are resolved full names used in the signature, in order of
	// first use, including section variables the statement uses.
	StatementDeps []string `parquet:"statement_deps,list"`
	ProofDeps     []string `parquet:"proof_deps,list"`
	// GeneratedFrom names the written declaration a generated one comes from.
	GeneratedFrom *string `parquet:"generated_from,optional"`

	// The columns below were added with Lean's module system (see
	// AddedColumns): tables written before them read as "" and false.

	// Visibility is "private" when Lean gives the declaration a private
	// (mangled) name that no other module can write — written `private`, or,
	// in a `module` file, neither inside a `public section` nor marked
	// `public` (Lean.Elab.Visibility.isInferredPublic) — and "public"
	// otherwise. "" in tables written before the column: readers fall back
	// to Modifiers containing "private".
	Visibility string `parquet:"visibility,dict"`
	// Exposed is whether, in a module file, the declaration's body is in the
	// public scope (other modules can unfold it): a def with @[expose] or in
	// an `@[expose] section` (and not @[no_expose]), an abbrev or instance
	// (always), a structure, class or inductive with its constructors and
	// projections, an axiom (nothing is hidden). Theorems and opaques never
	// expose their bodies. True for every declaration of a non-module file.
	Exposed bool `parquet:"exposed"`
}

// Visibility values of Declaration.Visibility.
const (
	VisibilityPublic  = "public"
	VisibilityPrivate = "private"
)

// AddedColumns are the columns declarations.parquet gained with Lean's
// module system; tables written before load without them.
func (*Declaration) AddedColumns() []string { return []string{"visibility", "exposed"} }

// IsPrivate reports whether Lean makes the declaration private to its
// module (Visibility, or the `private` modifier in tables written before
// the visibility column).
func (d *Declaration) IsPrivate() bool { return IsPrivate(d.Visibility, d.Modifiers) }

// IsPrivate is Declaration.IsPrivate for readers that decode only these
// two columns.
func IsPrivate(visibility string, modifiers []string) bool {
	if visibility != "" {
		return visibility == VisibilityPrivate
	}
	return slices.Contains(modifiers, "private")
}

// Module is one row of modules.parquet: one Lean source file.
type Module struct {
	Library   string   `parquet:"library,dict"`
	Revision  string   `parquet:"revision,dict"`
	Name      string   `parquet:"name"`
	Path      string   `parquet:"path"`
	Imports   []string `parquet:"imports,list"`
	Docstring *string  `parquet:"docstring,optional"`
	// Declarations counts the rows of declarations.parquet from this module.
	Declarations int32 `parquet:"declarations"`
	// Errors counts parse errors reported in this file; Unresolved counts
	// identifiers that name resolution could not resolve.
	Errors     int32 `parquet:"errors"`
	Unresolved int32 `parquet:"unresolved"`

	// The columns below were added with Lean's module system (see
	// AddedColumns): tables written before them read as false and empty.

	// IsModule is whether the file opts into Lean's module system (its
	// header starts with `module`).
	IsModule bool `parquet:"is_module"`
	// ImportKinds says, for each of Imports in order, how the file imports
	// it: the words around `import` in Lean's order, space-separated — ""
	// (plain), "public", "meta", "public meta", "all", "public all", … Empty
	// in tables written before the column (then every import counts as
	// public: the whole closure is importable, as before).
	ImportKinds []string `parquet:"import_kinds,list"`
}

// AddedColumns are the columns modules.parquet gained with Lean's module
// system; tables written before load without them.
func (*Module) AddedColumns() []string { return []string{"is_module", "import_kinds"} }

// Notation is one row of notations.parquet: a notation of the library
// (`notation`, `notation3`, `infix`/`infixl`/`infixr`, `prefix`, `postfix`,
// or one alternative of a simple `macro_rules`) with the constants it
// expands to. Extract writes it next to declarations.parquet.
type Notation struct {
	Library  string `parquet:"library,dict"`
	Revision string `parquet:"revision,dict"`
	// Symbol is the first atom, trimmed (ℝ≥0∞, +ᵥ, ≡ of `a ≡ b [ZMOD n]`).
	Symbol string `parquet:"symbol"`
	// Atoms are every atom in order, trimmed (≡, [ZMOD, ]).
	Atoms []string `parquet:"atoms,list"`
	// Kind is the command: notation, notation3, infix, infixl, infixr,
	// prefix, postfix or macro_rules.
	Kind string `parquet:"kind,dict"`
	// Heads are the constants of the expansion in order of first use, the
	// head first, resolved to full names where the notation is declared
	// (as written when they do not resolve: core Lean names the reader
	// does not know).
	Heads []string `parquet:"heads,list"`
	// Expansion is the right-hand side as written.
	Expansion string `parquet:"expansion"`
	// Scope is "" (visible wherever the module is imported), "scoped"
	// (after `open Namespace`) or "local" (in its file only).
	Scope     string `parquet:"scope,dict"`
	Namespace string `parquet:"namespace,dict"` // of a scoped notation
	Module    string `parquet:"module,dict"`
	Path      string `parquet:"path,dict"`
	Line      int32  `parquet:"line"`
}

// Informal is one row of informal.parquet: an informal name and statement for a
// declaration, with who wrote it and from which exact inputs.
type Informal struct {
	Name              string `parquet:"name"`
	InformalName      string `parquet:"informal_name"`
	InformalStatement string `parquet:"informal_statement"`
	// Provider is "template" for the offline fallback, "openai:<model>" for an
	// LLM, "rauto" for rows imported from RAutoformalizer's library.
	Provider         string `parquet:"provider,dict"`
	PromptVersion    string `parquet:"prompt_version,dict"`
	InputSHA256      string `parquet:"input_sha256"`
	PromptTokens     int64  `parquet:"prompt_tokens"`
	CompletionTokens int64  `parquet:"completion_tokens"`
	// CreatedAt is RFC 3339 UTC.
	CreatedAt string `parquet:"created_at"`

	// The columns below were added with the formal-input reuse rule
	// (informalize): they are optional, so tables written before them still
	// load, with empty values.

	// OwnInputSHA256 covers the declaration's own prompt inputs only (kind,
	// name, module and module docstring, signature, docstring, definition
	// body, names of its statement dependencies) with the provider, prompt
	// version and prompt files. InputSHA256 (the reuse key) is this plus the
	// formal inputs of every statement dependency the prompt shows. Empty for
	// rows written by the older rule, whose InputSHA256 also covered the
	// dependencies' informal text, and for imported rows.
	OwnInputSHA256 string `parquet:"own_input_sha256,optional"`
	// InformalSHA256 identifies this row's text: InformalTextSHA256 of
	// InformalName and InformalStatement.
	InformalSHA256 string `parquet:"informal_sha256,optional"`
	// Context lists, in prompt order, the dependency rows whose informal text
	// the prompt carried, by the text's InformalSHA256. A dependency whose
	// current row has another informal_sha256 was re-worded since: this
	// row's context is stale (informalize --refresh-dependents redoes it).
	Context []InformalContext `parquet:"context,list,optional"`
}

// AddedColumns are the columns informal.parquet gained with the
// formal-input reuse rule; tables written before load without them.
func (*Informal) AddedColumns() []string {
	return []string{"own_input_sha256", "informal_sha256", "context"}
}

// InformalContext names one dependency revision an Informal row's prompt
// carried.
type InformalContext struct {
	Name           string `parquet:"name" json:"name"`
	InformalSHA256 string `parquet:"informal_sha256" json:"informal_sha256"`
}

// InformalTextSHA256 is the hex SHA-256 of informalName, a newline and
// informalStatement (UTF-8): the identity of an informal text, as stored in
// Informal.InformalSHA256 and InformalContext.InformalSHA256. In Python:
// hashlib.sha256((name + "\n" + statement).encode()).hexdigest().
func InformalTextSHA256(informalName, informalStatement string) string {
	h := sha256.New()
	h.Write([]byte(informalName))
	h.Write([]byte{'\n'})
	h.Write([]byte(informalStatement))
	return hex.EncodeToString(h.Sum(nil))
}

// Query sources of a Pair.
const (
	QuerySourceInformal  = "informal"
	QuerySourceDocstring = "docstring"
)

// Splits of a Pair.
const (
	SplitTrain = "train"
	SplitValid = "valid"
	SplitTest  = "test"
)

// Pair is one row of pairs.parquet: a dependency-retrieval training example.
type Pair struct {
	QueryID     string   `parquet:"query_id"`
	Query       string   `parquet:"query"`
	QuerySource string   `parquet:"query_source,dict"`
	Theorem     string   `parquet:"theorem"`
	Positives   []string `parquet:"positives,list"`
	Negatives   []string `parquet:"negatives,list"`
	Split       string   `parquet:"split,dict"`
	// NegativeSources says where each of Negatives comes from, in the same
	// order: NegativeMined (a retriever's hard negative) or NegativeRandom
	// (a random premise candidate, the fallback). Files written before the
	// column existed read as empty (see NegativeSourcesOf).
	NegativeSources []string `parquet:"negative_sources,list"`
}

// AddedColumns are the columns pairs.parquet gained after its first release
// (negative_sources): older files read them as empty.
func (*Pair) AddedColumns() []string { return []string{"negative_sources"} }

// Usage is one row of index/usage.parquet: a premise and the declarations whose
// statement uses it.
type Usage struct {
	Premise string   `parquet:"premise"`
	UsedBy  []string `parquet:"used_by,list"`
	Count   int32    `parquet:"count"`
}
