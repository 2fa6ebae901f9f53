// Package rauto reads RAutoformalizer's library format (the library.jsonl of
// the "rethinking autoformalization" release) and turns it into driftkit
// workspace tables: declarations with statement dependencies taken from the
// premise markers, and informal rows with provider "rauto". It is one of
// extract's importers of elaborated libraries, and depends only on package
// workspace.
package rauto

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/driftkit/driftkit/workspace"
)

// PremiseMarker follows each linked premise name in a library header.
const PremiseMarker = "🔗<|PREMISE|>🔗"

// Provider is the Informal.Provider of imported rows.
const Provider = "rauto"

// PromptVersion labels imported informal rows: the texts come from the
// RAutoformalizer release, not from a driftkit prompt.
const PromptVersion = "rauto-library"

// Row is one line of library.jsonl.
type Row struct {
	FullName       string `json:"full_name"`
	URL            string `json:"url"`
	CodeSrc        string `json:"code_src"`
	PType          string `json:"ptype"`
	Header         string `json:"header"`
	Code           string `json:"code"`
	AdditionalInfo string `json:"additional_info"`
	UsedPremises   []int  `json:"used_premises"`
	DefPath        string `json:"def_path"`
	Pos            []int  `json:"pos"`
	Informal       string `json:"informalization"`
}

// ErrFormat is wrapped by every error about malformed library input.
var ErrFormat = errors.New("rauto library format")

// LineError names the line of library.jsonl at fault.
type LineError struct {
	Path string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Library is a parsed library file. Problems that do not stop the import
// (a premise index out of range, a marker whose name disagrees with the
// indexed row) are collected in Warnings.
type Library struct {
	Rows     []Row
	Warnings []error
}

// Read parses library.jsonl from r; path is used in error messages. A line
// that is not a JSON object with a full_name is an error (the row indices of
// used_premises would be shifted if it were skipped).
func Read(r io.Reader, path string) (*Library, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	lib := &Library{}
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			return nil, &LineError{path, line, fmt.Errorf("%w: empty line (row indices would shift)", ErrFormat)}
		}
		var row Row
		if err := json.Unmarshal(b, &row); err != nil {
			return nil, &LineError{path, line, fmt.Errorf("%w: %v", ErrFormat, err)}
		}
		if row.FullName == "" {
			return nil, &LineError{path, line, fmt.Errorf("%w: no full_name", ErrFormat)}
		}
		lib.Rows = append(lib.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, &LineError{path, line + 1, fmt.Errorf("%w: %v", ErrFormat, err)}
	}
	if len(lib.Rows) == 0 {
		// An empty import or reference would score or write nothing and look
		// like success.
		return nil, &LineError{path, 1, fmt.Errorf("%w: no rows (want one JSON object per line with full_name, header, used_premises, …)", ErrFormat)}
	}
	first := make(map[string]int, len(lib.Rows))
	for i, row := range lib.Rows {
		if j, dup := first[row.FullName]; dup {
			// Names are the workspace's keys: a second row would make
			// lookups ambiguous. Tables keeps the first.
			lib.Warnings = append(lib.Warnings, &LineError{path, i + 1,
				fmt.Errorf("%w: duplicate full_name %q (first on line %d); only the first row is imported", ErrFormat, row.FullName, j+1)})
		} else {
			first[row.FullName] = i
		}
		if n := strings.Count(row.Header, PremiseMarker); n != len(row.UsedPremises) {
			lib.Warnings = append(lib.Warnings, &LineError{path, i + 1,
				fmt.Errorf("%w: %d premise markers but %d used_premises", ErrFormat, n, len(row.UsedPremises))})
		}
		for _, p := range row.UsedPremises {
			if p < 0 || p >= len(lib.Rows) {
				lib.Warnings = append(lib.Warnings, &LineError{path, i + 1,
					fmt.Errorf("%w: used_premises index %d out of range [0,%d)", ErrFormat, p, len(lib.Rows))})
			}
		}
	}
	return lib, nil
}

// Kind maps a library ptype to a dataset kind.
func Kind(ptype string) string {
	switch ptype {
	case "theorem", "lemma":
		return workspace.KindTheorem
	case "def", "noncomputable def", "irreducible_def":
		return workspace.KindDefinition
	case "abbrev":
		return workspace.KindAbbrev
	case "instance":
		return workspace.KindInstance
	case "class", "class inductive":
		return workspace.KindClass
	case "structure":
		return workspace.KindStructure
	case "inductive":
		return workspace.KindInductive
	case "constructor", "structure_mk":
		return workspace.KindConstructor
	case "structure_field":
		return workspace.KindProjection
	case "axiom":
		return workspace.KindAxiom
	case "opaque":
		return workspace.KindOpaque
	}
	return workspace.KindDefinition
}

// Signature strips the premise markers, the leading attributes, keyword and
// name from a header, leaving binders and type as in Declaration.Signature.
func Signature(header, fullName string) string {
	h := strings.ReplaceAll(header, PremiseMarker, "")
	if i := strings.Index(h, fullName); i >= 0 && i < 200 {
		prefix := h[:i]
		// Only strip when what precedes the name is attributes and a keyword.
		if !strings.ContainsAny(strings.TrimSpace(stripAttrs(prefix)), ":()") {
			h = h[i+len(fullName):]
		}
	}
	return strings.TrimSpace(h)
}

func stripAttrs(s string) string {
	for {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "@[") {
			return s
		}
		j := strings.Index(s, "]")
		if j < 0 {
			return s
		}
		s = s[j+1:]
	}
}

// Attributes returns the attribute names of a header's leading @[...] blocks.
func Attributes(header string) []string {
	var out []string
	s := strings.TrimSpace(header)
	for strings.HasPrefix(s, "@[") {
		j := strings.Index(s, "]")
		if j < 0 {
			break
		}
		for _, a := range strings.Split(s[2:j], ",") {
			if a = strings.TrimSpace(a); a != "" {
				out = append(out, a)
			}
		}
		s = strings.TrimSpace(s[j+1:])
	}
	return out
}

// Module turns a def_path such as ConNF/NewTangle/Cloud.lean into a module name.
func Module(defPath string) string {
	p := strings.TrimSuffix(defPath, ".lean")
	return strings.ReplaceAll(p, "/", ".")
}

// Libraries as recorded in Declaration.Library, by code_src.
func libraryName(codeSrc string) string {
	switch codeSrc {
	case "mathlib4":
		return "mathlib"
	case "lean4":
		return "lean"
	case "":
		return "unknown"
	}
	return codeSrc
}

// Tables converts the library into workspace rows. createdAt is the
// Informal.CreatedAt of every informal row (RFC 3339 UTC).
func (lib *Library) Tables(createdAt string) (decls []workspace.Declaration, informal []workspace.Informal, modules []workspace.Module) {
	modIdx := map[string]int{}
	names := make(map[string]bool, len(lib.Rows))
	for _, row := range lib.Rows {
		if names[row.FullName] {
			continue // a duplicate full_name (a Read warning): the first row wins
		}
		names[row.FullName] = true
		deps := make([]string, 0, len(row.UsedPremises))
		seen := map[string]bool{}
		for _, p := range row.UsedPremises {
			if p < 0 || p >= len(lib.Rows) {
				continue
			}
			n := lib.Rows[p].FullName
			if !seen[n] {
				seen[n] = true
				deps = append(deps, n)
			}
		}
		d := workspace.Declaration{
			Library:       libraryName(row.CodeSrc),
			Name:          row.FullName,
			Kind:          Kind(row.PType),
			Keyword:       row.PType,
			Module:        Module(row.DefPath),
			Path:          row.DefPath,
			Attributes:    Attributes(row.Header),
			Signature:     Signature(row.Header, row.FullName),
			Code:          row.Code,
			StatementDeps: deps,
		}
		if i := strings.LastIndex(row.FullName, "."); i > 0 {
			d.Namespace = row.FullName[:i]
		}
		if len(row.Pos) >= 2 {
			d.LineStart, d.LineEnd = int32(row.Pos[0]), int32(row.Pos[1])
		}
		if strings.HasPrefix(row.PType, "noncomputable") {
			d.Modifiers = []string{"noncomputable"}
		}
		decls = append(decls, d)
		if row.Informal != "" {
			h := sha256.Sum256([]byte(row.Header + "\x00" + row.Informal))
			informal = append(informal, workspace.Informal{
				Name:              row.FullName,
				InformalStatement: row.Informal,
				Provider:          Provider,
				PromptVersion:     PromptVersion,
				InputSHA256:       hex.EncodeToString(h[:]),
				CreatedAt:         createdAt,
			})
		}
		if row.DefPath != "" {
			m := Module(row.DefPath)
			i, ok := modIdx[m]
			if !ok {
				i = len(modules)
				modIdx[m] = i
				modules = append(modules, workspace.Module{Library: d.Library, Name: m, Path: row.DefPath})
			}
			modules[i].Declarations++
		}
	}
	return decls, informal, modules
}
