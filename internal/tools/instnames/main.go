// Command instnames measures how many of the generated instance names a
// library's own sources refer to (instCommSemiring in a proof,
// `attribute [-instance] Subalgebra.instSMulSubtypeMem`) are names of
// anonymous instances in an extracted workspace: the real Lean names,
// written by people who compiled the code, against the names extract gave.
// A reference counts when no declaration is explicitly named like it (an
// `instance instFoo` is not generated) and it is not a `deriving` name.
//
//	go run ./internal/tools/instnames WS SRC_DIR [MISSES_FILE]
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/driftkit/driftkit/workspace"
)

// Report is printed as JSON: references in code (they compile, so they
// are the names Lean gave) and in comments and doc strings (they may be
// stale) are scored apart.
type Report struct {
	Code Score `json:"code"`
	// External counts the code references listed in external.txt (core,
	// Batteries, Lean: not the library's instances).
	External int   `json:"external"`
	Docs     Score `json:"docs"`
	// Anonymous counts the workspace's anonymous instances.
	Anonymous int `json:"anonymous_instances"`
}

// Score counts the distinct referenced generated names; Found those that
// are an anonymous instance's name (the full name, or its last components
// when the reference is relative to a namespace).
type Score struct {
	References int      `json:"references"`
	Found      int      `json:"found"`
	Agreement  float64  `json:"agreement"`
	Misses     []string `json:"misses,omitempty"`
}

var refRe = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_'])((?:[\p{L}_][\p{L}\p{N}_']*\.)*inst[A-Z][\p{L}\p{N}_'!?]*(?:\.[\p{L}_][\p{L}\p{N}_'!?]*)*)`)

// anonRe matches an anonymous instance's code: `instance` then its
// binders or colon (after an optional priority).
var anonRe = regexp.MustCompile(`(?m)^(?:@\[[^\]]*\]\s*)?(?:(?:noncomputable|scoped|local|private|protected|public)\s+)*instance\s*[:\[{(⦃]`)

//go:embed external.txt
var externalList string

// anonymous reports whether an instance's code declares no name.
func anonymous(code string) bool {
	loc := anonRe.FindStringIndex(code)
	if loc == nil {
		return false
	}
	rest := strings.TrimSpace(code[loc[1]-1:])
	if strings.HasPrefix(rest, "(priority") {
		_, after, _ := strings.Cut(rest, ")")
		rest = strings.TrimSpace(after)
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return strings.ContainsRune(":[{(⦃", r)
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: instnames WS SRC_DIR [MISSES_FILE]")
		os.Exit(2)
	}
	rep, err := run(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(os.Args) > 3 {
		out := "# code\n" + strings.Join(rep.Code.Misses, "\n") + "\n# docs\n" + strings.Join(rep.Docs.Misses, "\n") + "\n"
		if err := os.WriteFile(os.Args[3], []byte(out), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	rep.Code.Misses = rep.Code.Misses[:min(len(rep.Code.Misses), 40)]
	rep.Docs.Misses = nil
	b, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(b))
}

func run(ws, src string) (*Report, error) {
	var dump *os.File
	if p := os.Getenv("INSTNAMES_DUMP"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		dump = f
	}
	rows, err := workspace.ReadTable[workspace.Declaration](filepath.Join(ws, workspace.DeclarationsFile))
	if err != nil {
		return nil, err
	}
	explicit := map[string]bool{}
	anon := map[string]bool{}
	declared := map[string]bool{}
	grep := os.Getenv("INSTNAMES_GREP") // debugging: print the rows named like it
	// The to_additive/to_dual twins of anonymous instances have generated
	// names too (AddUnits.instOrd from Units.instOrd): counting them as
	// explicitly named made a reference's presence in the score depend on
	// the names extract gave (d22483f renamed Units.instOrdOfMonoid to
	// Units.instOrd, and OrderDual.instOrd left the references: 84 -> 83).
	// A named instance's twin is generated as well unless the attribute
	// names it (`@[to_additive instAddFoo]`): prod.instIsHaarMeasure's
	// twin prod.instIsAddHaarMeasure is a name to_additive made, and the
	// references to it test extract's translation.
	anonSrc := map[string]bool{}
	for _, r := range rows {
		if r.Keyword == "instance" && r.GeneratedFrom == nil && anonymous(r.Code) {
			anonSrc[r.Name] = true
		}
	}
	for _, r := range rows {
		if grep != "" && strings.Contains(r.Name, grep) {
			fmt.Fprintf(os.Stderr, "%s\t%s\t%s:%d\n", r.Name, r.Keyword, r.Path, r.LineStart)
		}
		declared[r.Name] = true
		last := r.Name[strings.LastIndexByte(r.Name, '.')+1:]
		derived := r.Kind == "instance" && strings.HasPrefix(r.Code, "deriving")
		twin := r.Kind == "instance" && r.GeneratedFrom != nil && (anonSrc[*r.GeneratedFrom] || !strings.Contains(r.Code, last))
		if derived || twin || r.Keyword == "instance" && r.GeneratedFrom == nil && anonymous(r.Code) {
			anon[r.Name] = true
			if dump != nil {
				first, _, _ := strings.Cut(r.Code, "\n")
				fmt.Fprintf(dump, "%s\t%s:%d\t%s\n", r.Name, r.Path, r.LineStart, first)
			}
			continue
		}
		explicit[last] = true
	}
	code, docs := map[string]bool{}, map[string]bool{}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lean") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		collect(string(b), declared, code, docs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for r := range code {
		delete(docs, r)
	}
	ext := 0
	for _, line := range strings.Split(externalList, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && code[line] {
			delete(code, line)
			ext++
		}
	}
	return &Report{Code: score(code, explicit, anon), Docs: score(docs, explicit, anon), Anonymous: len(anon), External: ext}, nil
}

// collect adds a file's references to code (outside comments) and docs
// (in comments and doc strings); names the file binds locally (`fun
// instCC`, `(instX : …)`, `have instY`) are no references.
func collect(src string, declared, code, docs map[string]bool) {
	codeText, docText := splitComments(src)
	for _, line := range strings.Split(codeText, "\n") {
		if strings.Contains(line, "deriving") {
			continue
		}
		for _, ix := range refRe.FindAllStringSubmatchIndex(line, -1) {
			m := []string{line[ix[0]:ix[1]], line[ix[2]:ix[3]]}
			r := trimRef(m[1])
			if r != m[1] && (declared[m[1]] || declRe.MatchString(line[:ix[2]])) {
				// instance NNReal.instContinuousMap.UniqueHom; in namespace
				// Multiset, instance instCoeSortMultisetType.instCoeOutToType
				// declares Multiset.instCoeSortMultisetType.… (a name kept
				// from older rules: no instance of that name need exist)
				continue
			}
			if !strings.Contains(r, ".") && localRe(r).MatchString(codeText) {
				continue
			}
			code[r] = true
		}
	}
	for _, m := range refRe.FindAllStringSubmatch(docText, -1) {
		docs[trimRef(m[1])] = true
	}
}

// declRe matches the text before a name a declaration declares.
var declRe = regexp.MustCompile(`\b(?:instance|def|theorem|lemma|abbrev|structure|class)\s+(?:\(priority\s*:=\s*[^)]*\)\s*)?$`)

func localRe(name string) *regexp.Regexp {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?:[(\[{⟨|,]\s*|\b(?:fun|let|have|intro|rintro|obtain|set|letI|haveI|with|at)\s+(?:[\w'.]+\s+)*)` + q + `(?:[^\w'.]|$)`)
}

// splitComments returns src with comments blanked, and the comments.
func splitComments(src string) (string, string) {
	var code, doc strings.Builder
	depth := 0
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "/-"):
			depth++
			i += 2
		case depth > 0 && strings.HasPrefix(src[i:], "-/"):
			depth--
			i += 2
			doc.WriteByte('\n')
		case depth == 0 && strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			doc.WriteString(src[i : i+j])
			doc.WriteByte('\n')
			i += j
		case depth > 0:
			doc.WriteByte(src[i])
			if src[i] == '\n' {
				code.WriteByte('\n')
			}
			i++
		default:
			code.WriteByte(src[i])
			i++
		}
	}
	return code.String(), doc.String()
}

// receiver reports whether a reference starts with a local term (c.inst…,
// U.inst…: generalized field notation), so only its last component is
// Lean's name.
func receiver(r string) bool {
	first, _, _ := strings.Cut(r, ".")
	c, size := utf8.DecodeRuneInString(first)
	return unicode.IsLower(c) && first != "prod" || size == len(first)
}

// trimRef cuts a reference after its inst… component (instFoo.toBar).
func trimRef(m string) string {
	parts := strings.Split(m, ".")
	for i, p := range parts {
		if strings.HasPrefix(p, "inst") && len(p) > 4 && p[4] >= 'A' && p[4] <= 'Z' {
			return strings.Join(parts[:i+1], ".")
		}
	}
	return m
}

func score(refs, explicit, anon map[string]bool) Score {
	var rep Score
	bySuffix := map[string][]string{}
	for n := range anon {
		last := n[strings.LastIndexByte(n, '.')+1:]
		bySuffix[last] = append(bySuffix[last], n)
	}
	for r := range refs {
		last := r[strings.LastIndexByte(r, '.')+1:]
		if explicit[last] || len(last) <= len("inst")+1 {
			continue
		}
		rep.References++
		found := false
		for _, n := range bySuffix[last] {
			if n == r || strings.HasSuffix(n, "."+r) || !strings.Contains(r, ".") || receiver(r) {
				found = true
				break
			}
		}
		if found {
			rep.Found++
		} else {
			rep.Misses = append(rep.Misses, r)
		}
	}
	sort.Strings(rep.Misses)
	if rep.References > 0 {
		rep.Agreement = float64(rep.Found) / float64(rep.References)
	}
	return rep
}
