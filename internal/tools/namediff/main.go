// Command namediff lists the declarations whose name differs between two
// workspaces extracted from the same sources (say, by two versions of
// extract): rows are matched by file, line, kind and their order among the
// rows of that line, so a renamed row shows as OLD → NEW, and rows only
// one workspace has as "- OLD" or "+ NEW".
//
//	go run ./internal/tools/namediff [-kind instance] OLD_WS NEW_WS
//	go run ./internal/tools/namediff -list [-kind instance] WS
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/driftkit/driftkit/workspace"
)

func main() {
	kind := flag.String("kind", "", "only rows of this kind (instance, theorem, …)")
	list := flag.Bool("list", false, "list one workspace's rows (name, then key) instead")
	flag.Parse()
	if *list && flag.NArg() == 1 {
		m, err := keyed(flag.Arg(0), *kind)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for k, name := range m {
			fmt.Printf("%s\t%s\n", name, k)
		}
		return
	}
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: namediff [-kind K] OLD_WS NEW_WS")
		os.Exit(2)
	}
	old, err := keyed(flag.Arg(0), *kind)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cur, err := keyed(flag.Arg(1), *kind)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var keys []string
	for k := range old {
		keys = append(keys, k)
	}
	for k := range cur {
		if _, ok := old[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	changed, gone, added := 0, 0, 0
	for _, k := range keys {
		o, inOld := old[k]
		c, inCur := cur[k]
		switch {
		case !inCur:
			gone++
			fmt.Printf("- %s\t%s\n", o, k)
		case !inOld:
			added++
			fmt.Printf("+ %s\t%s\n", c, k)
		case o != c:
			changed++
			fmt.Printf("%s → %s\t%s\n", o, c, k)
		}
	}
	fmt.Fprintf(os.Stderr, "%d renamed, %d only in %s, %d only in %s\n", changed, gone, flag.Arg(0), added, flag.Arg(1))
}

// keyed maps path:line:kind#i to each row's name.
func keyed(ws, kind string) (map[string]string, error) {
	rows, err := workspace.ReadTable[workspace.Declaration](filepath.Join(ws, workspace.DeclarationsFile))
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, d := range rows {
		if kind != "" && d.Kind != kind {
			continue
		}
		base := fmt.Sprintf("%s:%d:%s", d.Path, d.LineStart, d.Kind)
		for i := 0; ; i++ {
			k := fmt.Sprintf("%s#%d", base, i)
			if _, ok := m[k]; !ok {
				m[k] = d.Name
				break
			}
		}
	}
	return m, nil
}
