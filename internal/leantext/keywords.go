package leantext

import "slices"

// Class says what a word is to Lean's (and Mathlib's) command parser. A
// word may be several things: "open" starts a command at a line's start and
// is reserved; "theorem" starts a declaration, is a statement and reserved.
type Class uint16

// The classes of words.
const (
	// Decl starts a declaration, possibly after modifiers and attributes
	// (theorem, def, structure, …; Mathlib's irreducible_def, alias,
	// proof_wanted).
	Decl Class = 1 << iota
	// Command starts a command wherever it stands outside brackets
	// (namespace, section, variable, notation, …).
	Command
	// SoftCommand starts a command only at the start of a line no deeper
	// than the current command: it also exists inside terms and tactics
	// (open … in, set_option … in).
	SoftCommand
	// Modifier may precede a declaration keyword (private, noncomputable, …).
	Modifier
	// Statement is a declaration a formal statement may be: theorem, lemma,
	// example.
	Statement
	// Reserved cannot name a declaration: a decomposition's lemma ids are
	// refused when they are one.
	Reserved
)

// words is the one table of Lean's keywords that the extractor (command
// splitting), the Lean header merger (the name a command declares), DRIFT
// (the statement in a model's answer) and ToMap (lemma ids) read, each
// through Is with the classes it needs.
var words = map[string]Class{
	"theorem":                      Decl | Statement | Reserved,
	"lemma":                        Decl | Statement | Reserved,
	"def":                          Decl | Reserved,
	"abbrev":                       Decl | Reserved,
	"instance":                     Decl | Reserved,
	"structure":                    Decl | Reserved,
	"class":                        Decl | Reserved,
	"inductive":                    Decl | Reserved,
	"coinductive":                  Decl,
	"axiom":                        Decl | Reserved,
	"opaque":                       Decl,
	"example":                      Decl | Statement | Reserved,
	"irreducible_def":              Decl,
	"alias":                        Decl,
	"proof_wanted":                 Decl,
	"namespace":                    Command | Reserved,
	"section":                      Command | Reserved,
	"end":                          Command | Reserved,
	"variable":                     Command | Reserved,
	"variables":                    Command,
	"universe":                     Command | Reserved,
	"universes":                    Command,
	"attribute":                    Command,
	"export":                       Command,
	"mutual":                       Command | Reserved,
	"import":                       Command | Reserved,
	"notation":                     Command,
	"notation3":                    Command,
	"infix":                        Command,
	"infixl":                       Command,
	"infixr":                       Command,
	"prefix":                       Command,
	"postfix":                      Command,
	"macro":                        Command | Reserved,
	"macro_rules":                  Command,
	"syntax":                       Command | Reserved,
	"elab":                         Command,
	"elab_rules":                   Command,
	"declare_syntax_cat":           Command,
	"initialize":                   Command,
	"builtin_initialize":           Command,
	"deriving":                     Command | Reserved,
	"omit":                         Command,
	"include":                      Command,
	"add_decl_doc":                 Command,
	"assert_not_exists":            Command,
	"library_note":                 Command,
	"suppress_compilation":         Command,
	"run_cmd":                      Command,
	"register_simp_attr":           Command,
	"initialize_simps_projections": Command,
	"simproc":                      Command,
	"simproc_decl":                 Command,
	"module":                       Command,
	"compile_inductive%":           Command,
	"unseal":                       Command,
	"seal":                         Command,
	"open_locale":                  Command,
	"lemma_wanted":                 Command,
	"register_option":              Command,
	"register_label_attr":          Command,
	"declare_aesop_rule_sets":      Command,
	"add_aesop_rules":              Command,
	"instance_wanted":              Command,
	"builtin_simproc":              Command,
	"dsimproc":                     Command,
	"count_heartbeats":             Command,
	"recall":                       Command,
	"assert_not_imported":          Command,
	"open":                         SoftCommand | Reserved,
	"set_option":                   SoftCommand,
	"local":                        SoftCommand | Modifier,
	"scoped":                       SoftCommand | Modifier,
	"private":                      Modifier | Reserved,
	"protected":                    Modifier | Reserved,
	"noncomputable":                Modifier | Reserved,
	"partial":                      Modifier,
	"unsafe":                       Modifier,
	"nonrec":                       Modifier,
	"public":                       Modifier,
	"meta":                         Modifier,
	"at":                           Reserved,
	"by":                           Reserved,
	"do":                           Reserved,
	"else":                         Reserved,
	"fun":                          Reserved,
	"have":                         Reserved,
	"if":                           Reserved,
	"in":                           Reserved,
	"let":                          Reserved,
	"match":                        Reserved,
	"then":                         Reserved,
	"with":                         Reserved,
	"show":                         Reserved,
	"from":                         Reserved,
	"where":                        Reserved,
	"calc":                         Reserved,
	"sorry":                        Reserved,
	"Type":                         Reserved,
	"Prop":                         Reserved,
	"Sort":                         Reserved,
	"forall":                       Reserved,
	"exists":                       Reserved,
	"return":                       Reserved,
	"for":                          Reserved,
	"unless":                       Reserved,
	"mut":                          Reserved,
}

// Is reports whether word belongs to one of the classes c.
func Is(word string, c Class) bool { return words[word]&c != 0 }

// Words lists the words of the classes c, sorted: for a reader that
// searches a text for them (the statement keywords in a model's answer).
func Words(c Class) []string {
	var out []string
	for w, wc := range words {
		if wc&c != 0 {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}
