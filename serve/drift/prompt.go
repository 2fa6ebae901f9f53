package drift

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"text/template"

	"github.com/driftkit/driftkit/llm"
)

// PromptVersion names the default prompt folder prompts/<version>/. Change a
// prompt meaningfully → new folder; every record also carries the sha256 of
// the exact messages it sent, so an edit without a new version still shows.
const PromptVersion = "v1"

//go:embed prompts
var promptFS embed.FS

// Example is one few-shot decomposition example (prompts/<v>/decompose_examples.json).
type Example struct {
	Area       string     `json:"area"`
	Statement  string     `json:"statement"`
	SubQueries []SubQuery `json:"sub_queries"`
}

// Prompts are the parsed prompt files of one version. Safe for concurrent
// use: the templates are only executed.
type Prompts struct {
	Version           string
	DecomposeSystem   string
	Examples          []Example
	FormalizeSystem   string
	decomposeUser     *template.Template
	decomposeRepair   *template.Template
	formalizeUser     *template.Template
	formalizeRepair   *template.Template
	examplesAssistant []string // the examples' answers as the model should write them
	// SHA256 hashes every file of the version, in name order.
	SHA256 string
}

// LoadPrompts reads prompts/<version>/ from the embedded files.
func LoadPrompts(version string) (*Prompts, error) {
	dir := "prompts/" + version
	read := func(name string) (string, error) {
		b, err := promptFS.ReadFile(dir + "/" + name)
		if err != nil {
			return "", fmt.Errorf("prompt version %q: %w", version, err)
		}
		return string(b), nil
	}
	p := &Prompts{Version: version}
	var err error
	if p.DecomposeSystem, err = read("decompose_system.txt"); err != nil {
		return nil, err
	}
	if p.FormalizeSystem, err = read("formalize_system.txt"); err != nil {
		return nil, err
	}
	for _, t := range []struct {
		name string
		dst  **template.Template
	}{{"decompose_user.tmpl", &p.decomposeUser}, {"decompose_repair.tmpl", &p.decomposeRepair},
		{"formalize_user.tmpl", &p.formalizeUser}, {"formalize_repair.tmpl", &p.formalizeRepair}} {
		s, err := read(t.name)
		if err != nil {
			return nil, err
		}
		if *t.dst, err = template.New(t.name).Option("missingkey=error").Parse(s); err != nil {
			return nil, fmt.Errorf("prompt version %q: %w", version, err)
		}
	}
	ex, err := read("decompose_examples.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(ex), &p.Examples); err != nil {
		return nil, fmt.Errorf("prompt version %q: decompose_examples.json: %w", version, err)
	}
	for i, e := range p.Examples {
		if err := validateSubQueries(e.SubQueries); err != nil {
			return nil, fmt.Errorf("prompt version %q: decompose example %d: %w", version, i+1, err)
		}
		b, _ := json.Marshal(decomposition{SubQueries: e.SubQueries})
		p.examplesAssistant = append(p.examplesAssistant, string(b))
	}
	h := sha256.New()
	entries, err := fs.ReadDir(promptFS, dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		b, _ := promptFS.ReadFile(dir + "/" + n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	p.SHA256 = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

func execute(t *template.Template, data any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		// The templates are embedded and their data types fixed: a failure
		// is a programming error that the tests catch.
		panic(fmt.Sprintf("prompt template %s: %v", t.Name(), err))
	}
	return b.String()
}

// DecomposeMessages is the few-shot conversation asking for statement's
// sub-queries: the system prompt, then each example as a user/assistant
// turn, then the statement.
func (p *Prompts) DecomposeMessages(statement string) []llm.Message {
	msgs := []llm.Message{{Role: "system", Content: p.DecomposeSystem}}
	for i, e := range p.Examples {
		msgs = append(msgs,
			llm.Message{Role: "user", Content: execute(p.decomposeUser, map[string]string{"Statement": e.Statement})},
			llm.Message{Role: "assistant", Content: p.examplesAssistant[i]})
	}
	return append(msgs, llm.Message{Role: "user", Content: execute(p.decomposeUser, map[string]string{"Statement": statement})})
}

// DecomposeRepair is the follow-up turn after an unusable answer.
func (p *Prompts) DecomposeRepair(reason string) llm.Message {
	return llm.Message{Role: "user", Content: execute(p.decomposeRepair, map[string]string{"Reason": reason})}
}

// promptPremise and promptIllustration are what the formalization prompt
// shows of the context.
type promptPremise struct{ Name, Formal, Informal string }
type promptIllustration struct{ Formal, Informal string }

// FormalizeInput is everything one formalization prompt is made of.
type FormalizeInput struct {
	Statement     string
	Header        string
	Premises      []Premise
	Illustrations []Illustration
}

// FormalizeMessages renders instruction ⊕ premises ⊕ illustrations ⊕
// statement.
func (p *Prompts) FormalizeMessages(in FormalizeInput) []llm.Message {
	data := struct {
		Statement, Header string
		Premises          []promptPremise
		Illustrations     []promptIllustration
	}{Statement: in.Statement, Header: strings.TrimSpace(in.Header)}
	for _, pr := range in.Premises {
		data.Premises = append(data.Premises, promptPremise{Name: pr.Name, Formal: pr.Formal(), Informal: oneLine(pr.Informal)})
	}
	for _, il := range in.Illustrations {
		data.Illustrations = append(data.Illustrations, promptIllustration{Formal: il.Formal(), Informal: oneLine(il.Informal)})
	}
	return []llm.Message{{Role: "system", Content: p.FormalizeSystem}, {Role: "user", Content: execute(p.formalizeUser, data)}}
}

// FormalizeRepair is the follow-up turn after a statement Lean rejected
// (code and its error messages) or an answer without a usable statement
// (reason).
func (p *Prompts) FormalizeRepair(code string, messages []string, reason string) llm.Message {
	return llm.Message{Role: "user", Content: execute(p.formalizeRepair, map[string]any{"Code": code, "Messages": messages, "Reason": reason})}
}

// MessagesSHA256 hashes a conversation exactly as sent (roles and contents).
func MessagesSHA256(msgs []llm.Message) string {
	b, _ := json.Marshal(msgs)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// oneLine folds white space so that a multi-line informal statement stays
// one bullet of the prompt.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
