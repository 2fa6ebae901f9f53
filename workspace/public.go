package workspace

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Files that leave the machine (a dataset card, a published table's
// metadata) must not name the exporting machine's folders: a home folder
// says who made it, a temporary folder means nothing elsewhere, and neither
// lets a reader find the file. The manifest keeps absolute paths of inputs
// outside the workspace (Stale hashes them again); what is published names
// them relative to the workspace, or by file name with their sha256.

// PublicPath is how a published file names p: relative to the workspace
// when p is inside it, else by its file name alone.
func (w *Workspace) PublicPath(p string) string {
	if p == "" || !filepath.IsAbs(p) && !isUnder(p, w.Dir) {
		return p
	}
	if rel := w.rel(p); !filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Base(p)
}

// absPathRE finds absolute paths in free text: a slash-led run of path
// characters at the start of the text or after a space, quote, bracket,
// '=' or ':' (so "a/b" and URLs' "//host/x" stay).
var absPathRE = regexp.MustCompile(`(^|[\s"'(\[=,:;])(/[^\s"'()\[\]|;,]+)`)

// ScrubPaths replaces every absolute path in s by its PublicPath.
func (w *Workspace) ScrubPaths(s string) string {
	return absPathRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := absPathRE.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], "//") {
			return m
		}
		return sub[1] + w.PublicPath(sub[2])
	})
}

// ScrubValue returns v (a manifest parameter: strings, numbers, lists and
// maps as JSON decodes them, or Go slices of strings) with every string
// passed through ScrubPaths.
func (w *Workspace) ScrubValue(v any) any {
	switch x := v.(type) {
	case string:
		return w.ScrubPaths(x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = w.ScrubPaths(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = w.ScrubValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = w.ScrubValue(e)
		}
		return out
	}
	return v
}

// MachinePaths lists the exporting machine's folders that no published file
// may contain: the workspace (as given and resolved), the working
// directory, HOME and the temporary folder. The root folder and other
// one-character paths are left out (every path contains them).
func (w *Workspace) MachinePaths() []string {
	var out []string
	add := func(p string) {
		if len(p) <= 1 {
			return
		}
		p = filepath.Clean(p)
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p && len(r) > 1 {
			out = append(out, r)
		}
	}
	if abs, err := filepath.Abs(w.Dir); err == nil {
		add(abs)
	}
	if wd, err := os.Getwd(); err == nil {
		add(wd)
	}
	if h, err := os.UserHomeDir(); err == nil {
		add(h)
	}
	add(os.TempDir())
	return out
}

// LeakedPath returns the first of MachinePaths that s contains, or "".
func (w *Workspace) LeakedPath(s string) string {
	for _, p := range w.MachinePaths() {
		if strings.Contains(s, p) {
			return p
		}
	}
	return ""
}
