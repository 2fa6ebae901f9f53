package jixia

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// leanName is a Lean name as jixia writes it: a JSON array of string and
// number components (["Nat", "add_comm"], ["_private", "M", 0, "foo"]). A
// plain string is accepted too.
type leanName string

func (n *leanName) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*n = leanName(s)
		return nil
	}
	if bytes.Equal(b, []byte("null")) {
		*n = ""
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("name: want an array of components, got %.40s", b)
	}
	comps := make([]string, len(parts))
	for i, p := range parts {
		p = bytes.TrimSpace(p)
		if len(p) > 0 && p[0] == '"' {
			if err := json.Unmarshal(p, &comps[i]); err != nil {
				return err
			}
			continue
		}
		v, err := strconv.ParseUint(string(p), 10, 64)
		if err != nil {
			return fmt.Errorf("name component %.40s is neither a string nor a natural number", p)
		}
		comps[i] = strconv.FormatUint(v, 10)
	}
	*n = leanName(strings.Join(comps, "."))
	return nil
}

// syntaxRef is jixia's PPSyntax: whether the syntax was written in the
// source, its byte range there and its pretty-printed text.
type syntaxRef struct {
	Original bool    `json:"original"`
	Range    []int64 `json:"range"`
	PP       *string `json:"pp"`
}

func (s *syntaxRef) span() (int64, int64, bool) {
	if s == nil || len(s.Range) != 2 || s.Range[0] < 0 || s.Range[1] < s.Range[0] {
		return 0, 0, false
	}
	return s.Range[0], s.Range[1], true
}

type attribute struct {
	Kind string   `json:"kind"`
	Name leanName `json:"name"`
}

// modifiers are Lean's declaration modifiers as jixia derives their JSON;
// fields changed across Lean versions (docString: a string, or [text,
// isVerso]; isNoncomputable: a bool, later computeKind).
type modifiers struct {
	DocString       json.RawMessage `json:"docString"`
	Visibility      string          `json:"visibility"`
	IsProtected     bool            `json:"isProtected"`
	ComputeKind     string          `json:"computeKind"`
	IsNoncomputable bool            `json:"isNoncomputable"`
	RecKind         string          `json:"recKind"`
	IsUnsafe        bool            `json:"isUnsafe"`
	Attrs           []attribute     `json:"attrs"`
}

func (m *modifiers) docstring() (*string, error) {
	b := bytes.TrimSpace(m.DocString)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil, nil
	}
	var s string
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, err
		}
	} else {
		var parts []json.RawMessage
		if err := json.Unmarshal(b, &parts); err != nil || len(parts) == 0 {
			return nil, fmt.Errorf("docString: want a string or [text, flag]")
		}
		if err := json.Unmarshal(parts[0], &s); err != nil {
			return nil, fmt.Errorf("docString: %v", err)
		}
	}
	s = strings.TrimSpace(s)
	return &s, nil
}

type openDecl struct {
	Simple *struct {
		Namespace leanName   `json:"namespace"`
		Except    []leanName `json:"except"`
	} `json:"simple"`
}

type scopeInfo struct {
	CurrNamespace leanName   `json:"currNamespace"`
	OpenDecl      []openDecl `json:"openDecl"`
}

// declaration is one element of a .decl.json file (jixia's declaration
// plugin): a declaration command as written.
type declaration struct {
	Kind         string        `json:"kind"`
	Name         leanName      `json:"name"`
	Modifiers    modifiers     `json:"modifiers"`
	Ref          syntaxRef     `json:"ref"`
	Signature    syntaxRef     `json:"signature"`
	Type         *syntaxRef    `json:"type"`
	Value        *syntaxRef    `json:"value"`
	ScopeInfo    scopeInfo     `json:"scopeInfo"`
	Constructors []declaration `json:"constructors"`
}

// symbol is one element of a .sym.json file (jixia's symbol plugin): an
// elaborated constant of the module with the constants its type and value
// reference.
type symbol struct {
	Kind            string      `json:"kind"`
	Name            leanName    `json:"name"`
	TypeReferences  []leanName  `json:"typeReferences"`
	ValueReferences *[]leanName `json:"valueReferences"`
	TypeFull        *string     `json:"typeFull"`
	TypeReadable    *string     `json:"typeReadable"`
	TypeFallback    string      `json:"typeFallback"`
	IsProp          bool        `json:"isProp"`
}
