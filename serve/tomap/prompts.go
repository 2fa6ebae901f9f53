package tomap

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"text/template"
)

// PromptVersion names the prompt files in prompts/<version>/. Bump it (a new
// folder) when the prompts change meaningfully. Cached answers never go
// stale silently: the journal key of every call is the hash of the exact
// request, so an edited prompt is a new request.
const PromptVersion = "v1"

//go:embed prompts
var promptFS embed.FS

// Role names an agent. The first line of each role's system prompt starts
// with "You are the <title>", which is also how the test fakes recognise a
// role.
type Role string

const (
	RoleDecomposer Role = "decomposer"
	RoleRewriter   Role = "rewriter"
	RoleJudge      Role = "judge"
	RoleFormalizer Role = "formalizer"
	RoleProver     Role = "prover"
	RoleEnd2End    Role = "end2end"
	RoleSF         Role = "sf"
)

// Prompts are the parsed prompt files of one version. Safe for concurrent use.
type Prompts struct {
	Version string
	// Header is the fixed Lean file header (imports, options, opens) every
	// unit and every assembled file is checked under.
	Header string
	system map[Role]string
	tmpl   map[string]*template.Template
	hash   string
}

var templateNames = []string{"decompose", "dag", "repair", "rewrite", "judge", "formalize", "prove", "lean_errors", "end2end", "sf"}

// LoadPrompts reads prompts/<version>/ from the embedded files.
func LoadPrompts(version string) (*Prompts, error) {
	dir := "prompts/" + version + "/"
	h := sha256.New()
	read := func(name string) (string, error) {
		b, err := promptFS.ReadFile(dir + name)
		if err != nil {
			return "", fmt.Errorf("prompt version %q: %w", version, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00%s", name, len(b), b)
		return string(b), nil
	}
	p := &Prompts{Version: version, system: map[Role]string{}, tmpl: map[string]*template.Template{}}
	var err error
	if p.Header, err = read("header.lean"); err != nil {
		return nil, err
	}
	p.Header = strings.TrimSpace(p.Header)
	for _, r := range []Role{RoleDecomposer, RoleRewriter, RoleJudge, RoleFormalizer, RoleProver, RoleEnd2End, RoleSF} {
		s, err := read(string(r) + ".txt")
		if err != nil {
			return nil, err
		}
		p.system[r] = strings.TrimSpace(s)
	}
	funcs := template.FuncMap{"join": strings.Join}
	for _, name := range templateNames {
		s, err := read(name + ".tmpl")
		if err != nil {
			return nil, err
		}
		t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Parse(s)
		if err != nil {
			return nil, fmt.Errorf("%s%s.tmpl: %w", dir, name, err)
		}
		p.tmpl[name] = t
	}
	p.hash = hex.EncodeToString(h.Sum(nil))[:16]
	return p, nil
}

// MustPrompts loads the current version; the files are embedded and tested,
// so a failure is a bug.
func MustPrompts() *Prompts {
	p, err := LoadPrompts(PromptVersion)
	if err != nil {
		panic(err)
	}
	return p
}

// Hash identifies the prompt files' bytes (recorded in the summary).
func (p *Prompts) Hash() string { return p.hash }

// System is the system message of a role.
func (p *Prompts) System(r Role) string { return p.system[r] }

// render executes a named template. The templates are embedded and their
// data types are fixed, so an error is a bug.
func (p *Prompts) render(name string, data any) string {
	var b bytes.Buffer
	if err := p.tmpl[name].Execute(&b, data); err != nil {
		panic(fmt.Sprintf("tomap: prompt template %s: %v", name, err))
	}
	return strings.TrimSpace(b.String())
}

// RoleOf recognises the role of a conversation from its system message (for
// fakes and logs); "" if none matches.
func (p *Prompts) RoleOf(system string) Role {
	roles := make([]Role, 0, len(p.system))
	for r := range p.system {
		roles = append(roles, r)
	}
	sort.Slice(roles, func(i, j int) bool { return roles[i] < roles[j] })
	for _, r := range roles {
		if system == p.system[r] {
			return r
		}
	}
	return ""
}
