package informalize

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/driftkit/driftkit/llm"
)

// PromptVersion names the prompt files in prompts/<version>/. Bump it (new
// folder) when the prompts change meaningfully; the input hash also covers
// the files' bytes, so an edit without a bump still redoes everything.
const PromptVersion = "v1"

//go:embed prompts
var promptFS embed.FS

// Limits on what a prompt carries, so one huge declaration cannot blow the
// context window.
const (
	maxModuleDoc = 1500
	maxBody      = 3000
	maxDocstring = 2000
	maxSignature = 2000
	maxDeps      = 24
	maxDepSig    = 300
)

// Dep is a dependency as shown in a prompt: its name, its signature, and its
// informal text when it was informalized in this selection.
type Dep struct {
	Name              string `json:"name"`
	Signature         string `json:"signature,omitempty"`
	InformalName      string `json:"informal_name,omitempty"`
	InformalStatement string `json:"informal_statement,omitempty"`
}

// Input is everything a prompt is made from. The reuse key (input_sha256)
// covers all of it except the dependencies' informal text, which is context:
// see reuseKey.
type Input struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Module    string `json:"module"`
	ModuleDoc string `json:"module_doc,omitempty"`
	Signature string `json:"signature"`
	Docstring string `json:"docstring,omitempty"`
	Body      string `json:"body,omitempty"` // definitions only
	Deps      []Dep  `json:"deps,omitempty"`
}

// Prompts are the parsed prompt files of one version. Safe for concurrent use.
type Prompts struct {
	Version string
	System  string
	user    *template.Template
	repair  *template.Template
	hash    string // of the files' bytes
}

// LoadPrompts reads prompts/<version>/ from the embedded files.
func LoadPrompts(version string) (*Prompts, error) {
	read := func(name string) (string, error) {
		b, err := promptFS.ReadFile("prompts/" + version + "/" + name)
		return string(b), err
	}
	sys, err := read("system.txt")
	if err != nil {
		return nil, fmt.Errorf("prompt version %q: %w", version, err)
	}
	user, err := read("user.tmpl")
	if err != nil {
		return nil, fmt.Errorf("prompt version %q: %w", version, err)
	}
	rep, err := read("repair.txt")
	if err != nil {
		return nil, fmt.Errorf("prompt version %q: %w", version, err)
	}
	p := &Prompts{Version: version, System: strings.TrimSpace(sys)}
	if p.user, err = template.New("user").Option("missingkey=error").Parse(user); err != nil {
		return nil, fmt.Errorf("prompts/%s/user.tmpl: %w", version, err)
	}
	if p.repair, err = template.New("repair").Option("missingkey=error").Parse(rep); err != nil {
		return nil, fmt.Errorf("prompts/%s/repair.txt: %w", version, err)
	}
	h := sha256.New()
	for _, s := range []string{sys, user, rep} {
		fmt.Fprintf(h, "%d\n%s", len(s), s)
	}
	p.hash = hex.EncodeToString(h.Sum(nil))[:16]
	return p, nil
}

// User renders the user message for in.
func (p *Prompts) User(in *Input) string {
	var b bytes.Buffer
	if err := p.user.Execute(&b, in); err != nil {
		// The template is embedded and tested; a failure is a bug.
		panic(fmt.Sprintf("informalize: prompt template: %v", err))
	}
	return b.String()
}

// Repair renders the message asking the model to fix a bad answer.
func (p *Prompts) Repair(problem string) string {
	var b bytes.Buffer
	if err := p.repair.Execute(&b, map[string]string{"Problem": problem}); err != nil {
		panic(fmt.Sprintf("informalize: repair template: %v", err))
	}
	return strings.TrimSpace(b.String())
}

// Messages is the first request for in.
func (p *Prompts) Messages(in *Input) []llm.Message {
	return []llm.Message{{Role: "system", Content: p.System}, {Role: "user", Content: p.User(in)}}
}

// legacyInputHash is the reuse key of rows written before the formal-input
// rule: the SHA-256 of the exact prompt inputs, dependencies' informal text
// included, with the provider (and its model), the prompt version and the
// prompt files' bytes. It is still computed to recognise such rows.
func legacyInputHash(in *Input, provider, promptVersion, promptFilesHash string) string {
	b, err := json.Marshal(in)
	if err != nil {
		panic(err) // strings only
	}
	h := sha256.New()
	fmt.Fprintf(h, "driftkit-informalize\x00%s\x00%s\x00%s\x00", provider, promptVersion, promptFilesHash)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// keyRule tags every hash of the formal-input reuse rule, so that no key of
// the older rule can equal one of these.
const keyRule = "driftkit-informalize/formal-inputs-v1"

// fields builds the input of one hash: length-prefixed fields, so that field
// boundaries are part of it, hashed in one go.
type fields []byte

func (f fields) add(s ...string) fields {
	for _, x := range s {
		f = binary.AppendUvarint(f, uint64(len(x)))
		f = append(f, x...)
	}
	return f
}

func (f fields) sum() string {
	h := sha256.Sum256(f)
	return hex.EncodeToString(h[:])
}

// formalHash is the SHA-256 of a declaration's formal statement as
// dependents see it: kind, name and signature (as prompts carry it). A
// dependent's reuse key covers the formal hashes of its statement
// dependencies, so changing a dependency's statement redoes its dependents;
// changing anything else about it (its docstring, body, module, the
// resolution of the names in its signature) redoes the dependency alone,
// and re-wording its informal text redoes nothing.
//
// Measured on the Mathlib 59fdb6b0 → 1cf1beb7 bump: counting a dependency's
// body and statement-dependency names too would redo about 3,000 more
// declarations, most of them because AddMonoid and DivisionRing changed a
// default field value (their statements did not change).
func formalHash(in *Input) string {
	return make(fields, 0, 64+len(in.Name)+len(in.Signature)).add(keyRule+"/formal", in.Name, in.Kind, in.Signature).sum()
}

// ownInputHash covers a declaration's own prompt inputs: its formal hash,
// module, module documentation (moduleDoc stands for the text the prompt
// carries), docstring, definition body and the names of its statement
// dependencies in prompt order, with the provider and its model, the prompt
// version and the prompt files' bytes. Dependencies appear by name only.
func ownInputHash(in *Input, formal, moduleDoc, provider, promptVersion, promptFilesHash string) string {
	f := make(fields, 0, 512+len(in.Docstring)+len(in.Body))
	f = f.add(keyRule+"/own", formal, in.Module, moduleDoc, in.Docstring, in.Body, provider, promptVersion, promptFilesHash)
	for _, d := range in.Deps {
		f = f.add(d.Name)
	}
	return f.sum()
}

// depFormal is a dependency as the reuse key sees it: its name and its
// formal hash ("" for a name outside the library).
type depFormal struct {
	Name, Formal string
}

// reuseKey is the input_sha256 of the formal-input rule: the declaration's
// own input hash and, in prompt order, each statement dependency's name and
// formal hash. A rerun reuses a row whose key is unchanged.
func reuseKey(own string, deps []depFormal) string {
	f := make(fields, 0, 256+len(deps)*160)
	f = f.add(keyRule+"/key", own)
	for _, d := range deps {
		f = f.add(d.Name, d.Formal)
	}
	return f.sum()
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}
