package extract

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// GoldCoverage says how many of a benchmark's gold premises a workspace's
// declarations table holds as rows, by library, and why the others are
// missing: Lean core (the reader knows the name, but core has no sources and
// so no rows) or absent altogether (a package not given as --src, a name
// from a newer or older library revision).
type GoldCoverage struct {
	Gold        int            `json:"gold"`
	Rows        int            `json:"rows"`
	ByLibrary   map[string]int `json:"rows_by_library"`
	Core        []string       `json:"lean_core"`
	Absent      []string       `json:"absent"`
	CoreCount   int            `json:"lean_core_count"`
	AbsentCount int            `json:"absent_count"`
}

// Coverage checks the distinct gold names against declarations.parquet.
func Coverage(declsPath string, gold []string) (*GoldCoverage, error) {
	want := map[string]bool{}
	for _, g := range gold {
		if g = strings.TrimPrefix(strings.TrimSpace(g), "_root_."); g != "" {
			want[g] = true
		}
	}
	lib := map[string]string{}
	err := workspace.EachRow(declsPath, func(d *workspace.Declaration) error {
		if want[d.Name] {
			lib[d.Name] = strings.Clone(d.Library)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	core := map[string]bool{}
	for _, c := range coreNames() {
		core[c[0]] = true
	}
	cov := &GoldCoverage{Gold: len(want), ByLibrary: map[string]int{}}
	for g := range want {
		switch l, ok := lib[g]; {
		case ok:
			cov.Rows++
			cov.ByLibrary[l]++
		case core[g]:
			cov.Core = append(cov.Core, g)
		default:
			cov.Absent = append(cov.Absent, g)
		}
	}
	sort.Strings(cov.Core)
	sort.Strings(cov.Absent)
	cov.CoreCount, cov.AbsentCount = len(cov.Core), len(cov.Absent)
	return cov, nil
}

// WriteText prints the coverage for people.
func (c *GoldCoverage) WriteText(w io.Writer) {
	pct := func(n int) float64 {
		if c.Gold == 0 {
			return 0
		}
		return 100 * float64(n) / float64(c.Gold)
	}
	fmt.Fprintf(w, "%d distinct gold premises: %d rows (%.1f%%)", c.Gold, c.Rows, pct(c.Rows))
	var libs []string
	for l := range c.ByLibrary {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	for i, l := range libs {
		sep := ", "
		if i == 0 {
			sep = " — "
		}
		fmt.Fprintf(w, "%s%s %d", sep, l, c.ByLibrary[l])
	}
	fmt.Fprintf(w, "\n  Lean core, no rows (core has no sources): %d (%.1f%%) %s\n", len(c.Core), pct(len(c.Core)), strings.Join(c.Core, " "))
	fmt.Fprintf(w, "  absent from the sources given: %d (%.1f%%) %s\n", len(c.Absent), pct(len(c.Absent)), strings.Join(c.Absent, " "))
}
