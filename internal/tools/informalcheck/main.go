// Command informalcheck audits a workspace's informal.parquet against its
// declarations.parquet: every declaration has exactly one row, no row names
// a declaration that does not exist, and (from the context column) how many
// rows were made with a dependency text that is no longer the current one.
// It exits 1 when a row is missing, repeated or foreign.
//
//	go run ./internal/tools/informalcheck WS
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/driftkit/driftkit/workspace"
)

// Report is printed as JSON.
type Report struct {
	Declarations int      `json:"declarations"`
	Rows         int      `json:"rows"`
	Missing      int      `json:"missing"`
	Repeated     int      `json:"repeated"`
	Foreign      int      `json:"foreign"`
	Examples     []string `json:"examples,omitempty"`
	// LegacyRows have no own_input_sha256 (written by the older rule).
	LegacyRows int `json:"legacy_rows"`
	// StaleContext counts rows whose context names a dependency text other
	// than the dependency's current row.
	StaleContext int            `json:"stale_context"`
	Providers    map[string]int `json:"providers"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: informalcheck WS")
		os.Exit(2)
	}
	rep, err := check(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "informalcheck:", err)
		os.Exit(1)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(b))
	if rep.Missing+rep.Repeated+rep.Foreign > 0 {
		os.Exit(1)
	}
}

func check(dir string) (*Report, error) {
	ws, err := workspace.OpenExisting(dir)
	if err != nil {
		return nil, err
	}
	decls := map[string]bool{}
	err = workspace.EachRow(ws.Path(workspace.DeclarationsFile), func(d *workspace.Declaration) error {
		decls[d.Name] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep := &Report{Declarations: len(decls), Providers: map[string]int{}}
	seen := map[string]int{}
	text := map[string]string{}
	var ctx []struct {
		name string
		deps []workspace.InformalContext
	}
	err = workspace.EachRow(ws.Path(workspace.InformalFile), func(r *workspace.Informal) error {
		rep.Rows++
		seen[r.Name]++
		rep.Providers[r.Provider]++
		text[r.Name] = workspace.InformalTextSHA256(r.InformalName, r.InformalStatement)
		if r.OwnInputSHA256 == "" {
			rep.LegacyRows++
		}
		if len(r.Context) > 0 {
			ctx = append(ctx, struct {
				name string
				deps []workspace.InformalContext
			}{r.Name, append([]workspace.InformalContext(nil), r.Context...)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	note := func(s string) {
		if len(rep.Examples) < 10 {
			rep.Examples = append(rep.Examples, s)
		}
	}
	for name, n := range seen {
		if n > 1 {
			rep.Repeated++
			note(fmt.Sprintf("%s: %d rows", name, n))
		}
		if !decls[name] {
			rep.Foreign++
			note(name + ": not a declaration")
		}
	}
	for name := range decls {
		if seen[name] == 0 {
			rep.Missing++
			note(name + ": no row")
		}
	}
	for _, c := range ctx {
		for _, d := range c.deps {
			if cur, ok := text[d.Name]; ok && cur != d.InformalSHA256 {
				rep.StaleContext++
				break
			}
		}
	}
	return rep, nil
}
