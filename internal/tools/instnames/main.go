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
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// Report is printed as JSON.
type Report struct {
	// References counts the distinct referenced generated names; Found
	// those that are an anonymous instance's name (the full name, or its
	// last components when the reference is relative to a namespace).
	References int     `json:"references"`
	Found      int     `json:"found"`
	Agreement  float64 `json:"agreement"`
	// Anonymous counts the workspace's anonymous instances.
	Anonymous int      `json:"anonymous_instances"`
	Misses    []string `json:"misses,omitempty"`
}

var refRe = regexp.MustCompile(`(?:^|[^\w'])((?:[A-Za-z_][\w']*\.)*inst[A-Z][\w'ℝℕℤℚℂ]*)`)

// anonRe matches an anonymous instance's code: `instance` then its
// binders or colon (after an optional priority).
var anonRe = regexp.MustCompile(`(?m)^(?:@\[[^\]]*\]\s*)?(?:(?:noncomputable|scoped|local|private|protected|public)\s+)*instance\s*(?:\(priority\s*:=[^)]*\)\s*)?[:\[{(⦃]`)

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
		if err := os.WriteFile(os.Args[3], []byte(strings.Join(rep.Misses, "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	rep.Misses = rep.Misses[:min(len(rep.Misses), 40)]
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
	for _, r := range rows {
		last := r.Name[strings.LastIndexByte(r.Name, '.')+1:]
		if r.Keyword == "instance" && r.GeneratedFrom == nil && anonRe.MatchString(r.Code) {
			anon[r.Name] = true
			if dump != nil {
				first, _, _ := strings.Cut(r.Code, "\n")
				fmt.Fprintf(dump, "%s\t%s:%d\t%s\n", r.Name, r.Path, r.LineStart, first)
			}
			continue
		}
		explicit[last] = true
	}
	refs := map[string]bool{}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lean") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "deriving") {
				continue
			}
			for _, m := range refRe.FindAllStringSubmatch(line, -1) {
				refs[trimRef(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return score(refs, explicit, anon), nil
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

func score(refs, explicit, anon map[string]bool) *Report {
	rep := &Report{Anonymous: len(anon)}
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
			if n == r || strings.HasSuffix(n, "."+r) || !strings.Contains(r, ".") {
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
