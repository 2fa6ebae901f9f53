package tomap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/driftkit/driftkit/llm"
)

// ErrBadAnswer is wrapped by every reason a model answer is rejected (not
// JSON, wrong fields, out-of-range scores, Lean code of the wrong shape).
// Such an answer is fed back to the model once or more, as each agent's
// retry budget allows.
var ErrBadAnswer = errors.New("bad answer")

func badf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadAnswer, fmt.Sprintf(format, args...))
}

// decodeStrict parses content as exactly one JSON object into v: white space
// and a single ```json fence around it are tolerated, nothing else — no
// commentary, no unknown fields, no second object.
func decodeStrict(content string, v any) error {
	s := strings.TrimSpace(content)
	if s == "" {
		return badf("empty answer")
	}
	if strings.HasPrefix(s, "```") {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || !strings.HasSuffix(s, "```") || len(s) < nl+4 {
			return badf("unterminated code fence")
		}
		if lang := strings.TrimSpace(s[3:nl]); lang != "" && lang != "json" {
			return badf("code fence of %q, want a bare JSON object", lang)
		}
		s = strings.TrimSpace(s[nl+1 : len(s)-3])
	}
	if !utf8.ValidString(s) {
		return badf("answer is not valid UTF-8")
	}
	if !strings.HasPrefix(s, "{") {
		return badf("answer does not start with a JSON object: %q", clip(s, 80))
	}
	// LaTeX with one backslash ("\frac", "\neq") would decode into control
	// characters or fail.
	s, _ = llm.RepairJSONEscapes(s)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badf("not the expected JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badf("text after the JSON object")
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// roleSchemas are the JSON schemas of each role's answer, sent with its
// requests (the parsers still check every answer).
var roleSchemas = func() map[Role]*llm.Schema {
	str := `{"type":"string"}`
	obj := func(fields ...string) string { return string(llm.ObjectSchema(len(fields)/2, fields...)) }
	// A unit needs its id and claim; the lists may be left out or null (as
	// a Go nil slice is written): the parser takes either.
	strs := `{"type":["array","null"],"items":{"type":"string"}}`
	unit := string(llm.ObjectSchema(2, "id", str, "claim", str, "depends_on", strs, "variables", strs, "assumptions", strs, "hints", str))
	decomp := &llm.Schema{Name: "decomposition", JSON: json.RawMessage(obj("units", `{"type":"array","minItems":1,"items":`+unit+`}`))}
	item := obj("score", `{"type":"number","minimum":0,"maximum":1}`, "critique", str)
	lean := &llm.Schema{Name: "lean", JSON: json.RawMessage(obj("lean", str))}
	return map[Role]*llm.Schema{
		RoleDecomposer: decomp,
		RoleRewriter:   decomp,
		RoleJudge:      {Name: "rubric", JSON: json.RawMessage(obj(Dimensions[0], item, Dimensions[1], item, Dimensions[2], item))},
		RoleFormalizer: lean,
		RoleProver:     {Name: "proof", JSON: json.RawMessage(obj("proof", str))},
		RoleEnd2End:    lean,
		RoleSF:         {Name: "verdict", JSON: json.RawMessage(obj("faithful", `{"type":"boolean"}`, "reason", str))},
	}
}()

// Dimensions of the rubric, in Vector order.
var Dimensions = [3]string{"faithful", "provable", "lean_friendly"}

// Rubric is the judges' verdict on one decomposition.
type Rubric struct {
	Scores    Vector    `json:"scores"`
	Critiques [3]string `json:"critiques"`
}

type rubricItem struct {
	Score    *json.Number `json:"score"`
	Critique *string      `json:"critique"`
}

type rubricAnswer struct {
	Faithful     *rubricItem `json:"faithful"`
	Provable     *rubricItem `json:"provable"`
	LeanFriendly *rubricItem `json:"lean_friendly"`
}

// RubricSchema is the answer shape the judges are asked for.
const RubricSchema = `{"faithful": {"score": 0.0, "critique": "..."}, "provable": {"score": 0.0, "critique": "..."}, "lean_friendly": {"score": 0.0, "critique": "..."}}`

// ParseRubric reads a judge's answer strictly: the three dimensions, each
// with a score in [0, 1] and a critique string.
func ParseRubric(content string) (Rubric, error) {
	var a rubricAnswer
	if err := decodeStrict(content, &a); err != nil {
		return Rubric{}, err
	}
	var r Rubric
	for i, it := range []*rubricItem{a.Faithful, a.Provable, a.LeanFriendly} {
		name := Dimensions[i]
		if it == nil {
			return Rubric{}, badf("%s missing", name)
		}
		if it.Score == nil {
			return Rubric{}, badf("%s.score missing", name)
		}
		x, err := it.Score.Float64()
		if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
			return Rubric{}, badf("%s.score %s is not a number in [0, 1]", name, it.Score.String())
		}
		if it.Critique == nil {
			return Rubric{}, badf("%s.critique missing", name)
		}
		r.Scores[i] = x
		r.Critiques[i] = strings.TrimSpace(*it.Critique)
	}
	return r, nil
}

// Verdict is the semantic-faithfulness judge's binary answer.
type Verdict struct {
	Faithful bool   `json:"faithful"`
	Reason   string `json:"reason"`
}

// VerdictSchema is the SF judge's answer shape.
const VerdictSchema = `{"faithful": true, "reason": "..."}`

// ParseVerdict reads the SF judge's answer strictly.
func ParseVerdict(content string) (Verdict, error) {
	var a struct {
		Faithful *bool   `json:"faithful"`
		Reason   *string `json:"reason"`
	}
	if err := decodeStrict(content, &a); err != nil {
		return Verdict{}, err
	}
	if a.Faithful == nil {
		return Verdict{}, badf("faithful (true or false) missing")
	}
	if a.Reason == nil {
		return Verdict{}, badf("reason missing")
	}
	return Verdict{Faithful: *a.Faithful, Reason: strings.TrimSpace(*a.Reason)}, nil
}

// Schemas of the Lean-writing agents' answers.
const (
	LeanSchema  = `{"lean": "..."}`
	ProofSchema = `{"proof": "..."}`
)

// forbidden are tokens that would let Lean accept a proof that proves
// nothing (or check less); an answer containing one is rejected before
// Lean sees it.
var forbidden = regexp.MustCompile(`(^|[^A-Za-z0-9_.'])(sorry|admit|axiom|native_decide|implemented_by|extern|debug\.skipKernelTC)([^A-Za-z0-9_']|$)`)

var importLine = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+[^\n]*\n?`)

// stripImports drops `import` lines: the header is fixed and Lean rejects an
// import after it, which would cost a repair round for nothing.
func stripImports(code string) string {
	return strings.TrimSpace(importLine.ReplaceAllString(code, ""))
}

// statementRE matches a formalized unit: `lemma|theorem <id> <sig> := by sorry`.
var statementRE = regexp.MustCompile(`(?s)^(lemma|theorem)\s+([^\s:({\[]+)(.*?):=\s*by\s+sorry\s*$`)

// ParseStatement reads the Formalizer's answer: one `lemma <id> … := by
// sorry`, named after the unit, with no other sorry or forbidden token. It
// returns the normalised statement and its signature (binders and type,
// without the name), which earlier-unit contexts turn into axioms.
func ParseStatement(content, unitID string) (stmt, sig string, err error) {
	var a struct {
		Lean *string `json:"lean"`
	}
	if err := decodeStrict(content, &a); err != nil {
		return "", "", err
	}
	if a.Lean == nil {
		return "", "", badf("lean missing")
	}
	code := stripImports(*a.Lean)
	m := statementRE.FindStringSubmatch(code)
	if m == nil {
		return "", "", badf("want exactly `lemma %s <binders> : <claim> := by sorry`, got %q", unitID, clip(code, 120))
	}
	if m[2] != unitID {
		return "", "", badf("the lemma is named %q, want the unit id %q", m[2], unitID)
	}
	sig = strings.TrimSpace(m[3])
	if sig == "" || !strings.Contains(sig, ":") {
		return "", "", badf("the lemma %s has no statement (want `lemma %s <binders> : <claim>`)", unitID, unitID)
	}
	if forbidden.MatchString(sig) {
		return "", "", badf("the statement uses a forbidden token (%s)", forbidden.FindString(sig))
	}
	if decl := declKeyword.FindString(sig); decl != "" {
		return "", "", badf("write only the one lemma %s, found another declaration (%s)", unitID, strings.TrimSpace(decl))
	}
	return "lemma " + unitID + " " + sig + " := by sorry", sig, nil
}

var declKeyword = regexp.MustCompile(`(?m)^\s*(lemma|theorem|def|abbrev|instance|structure|class|inductive|example|namespace|section|open|variable)\s`)

// ParseProof reads the Prover's answer: the tactics after `:= by`. A leading
// `by` is tolerated. Forbidden tokens are rejected.
func ParseProof(content string) (string, error) {
	var a struct {
		Proof *string `json:"proof"`
	}
	if err := decodeStrict(content, &a); err != nil {
		return "", err
	}
	if a.Proof == nil {
		return "", badf("proof missing")
	}
	p := normalizeTactics(*a.Proof)
	if p == "" {
		return "", badf("empty proof")
	}
	if m := forbidden.FindStringSubmatch(p); m != nil {
		return "", badf("the proof uses %s, which is not allowed", m[2])
	}
	return p, nil
}

// ParseLeanFile reads the end-to-end answer: Lean code without imports and
// without forbidden tokens.
func ParseLeanFile(content string) (string, error) {
	var a struct {
		Lean *string `json:"lean"`
	}
	if err := decodeStrict(content, &a); err != nil {
		return "", err
	}
	if a.Lean == nil {
		return "", badf("lean missing")
	}
	code := stripImports(*a.Lean)
	if code == "" {
		return "", badf("empty Lean code")
	}
	if m := forbidden.FindStringSubmatch(code); m != nil {
		return "", badf("the code uses %s, which is not allowed", m[2])
	}
	return code, nil
}

// normalizeTactics turns a tactic block as models write it into lines with
// their relative indentation kept and the common indentation removed; a
// leading `by` is dropped. Lean reads tactic blocks by column, so "  intro
// x\n  simp" must not become "intro x\n  simp".
func normalizeTactics(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	first := strings.TrimSpace(lines[0])
	firstIndent := len(lines[0]) - len(strings.TrimLeft(lines[0], " \t"))
	if first == "by" {
		lines = lines[1:]
		if len(lines) == 0 {
			return ""
		}
		first = strings.TrimSpace(lines[0])
		firstIndent = len(lines[0]) - len(strings.TrimLeft(lines[0], " \t"))
	} else if rest, ok := strings.CutPrefix(first, "by "); ok {
		first = strings.TrimSpace(rest)
		firstIndent = -1 // aligned with whatever follows
	}
	minIndent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		in := len(l) - len(strings.TrimLeft(l, " \t"))
		if minIndent < 0 || in < minIndent {
			minIndent = in
		}
	}
	if firstIndent >= 0 && (minIndent < 0 || firstIndent < minIndent) {
		minIndent = firstIndent
	}
	out := []string{first}
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		in := len(l) - len(strings.TrimLeft(l, " \t"))
		out = append(out, strings.TrimRight(l[min(in, max(minIndent, 0)):], " \t"))
	}
	return strings.Join(out, "\n")
}

// withProof replaces the `by sorry` of a statement with the tactics.
func withProof(stmt, tactics string) string {
	head := strings.TrimSuffix(stmt, "by sorry")
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteString("by\n")
	for _, line := range strings.Split(tactics, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		b.WriteString("  ")
		b.WriteString(strings.TrimRight(line, " \t\r"))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
