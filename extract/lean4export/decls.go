package lean4export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// constVal is the common part of every declaration record (format 3.x).
type constVal struct {
	Name        *uint32         `json:"name"`
	LevelParams []uint32        `json:"levelParams"`
	Type        *uint32         `json:"type"`
	Value       *uint32         `json:"value"`
	Hints       json.RawMessage `json:"hints"`
	Safety      string          `json:"safety"`
	All         []uint32        `json:"all"`
	IsUnsafe    bool            `json:"isUnsafe"`
	Kind        string          `json:"kind"` // quot
}

type indVal struct {
	constVal
	NumParams  int      `json:"numParams"`
	NumIndices int      `json:"numIndices"`
	Ctors      []uint32 `json:"ctors"`
	IsRec      bool     `json:"isRec"`
	NumNested  int      `json:"numNested"`
}

type ctorVal struct {
	constVal
	Induct    *uint32 `json:"induct"`
	NumFields int     `json:"numFields"`
}

type recVal struct {
	constVal
}

// inductiveBlock is one inductive (or mutual) group: format 3.1 names the
// parts types/ctors/recs, format 3.0 inductiveVals/constructorVals/
// recursorVals.
type inductiveBlock struct {
	Types           []indVal  `json:"types"`
	Ctors           []ctorVal `json:"ctors"`
	Recs            []recVal  `json:"recs"`
	InductiveVals   []indVal  `json:"inductiveVals"`
	ConstructorVals []ctorVal `json:"constructorVals"`
	RecursorVals    []recVal  `json:"recursorVals"`
}

// declRecord is a declaration line: exactly one of its fields is set. The
// definition-like ones are an object (format 3.1) or an array of the
// members of a mutual block (3.0).
type declRecord struct {
	Def       json.RawMessage `json:"def"`
	Thm       json.RawMessage `json:"thm"`
	Opaque    json.RawMessage `json:"opaque"`
	Axiom     json.RawMessage `json:"axiom"`
	Quot      json.RawMessage `json:"quot"`
	Inductive *inductiveBlock `json:"inductive"`
	Meta      json.RawMessage `json:"meta"`
}

// Meta is the first line of an export.
type Meta struct {
	Exporter struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"exporter"`
	Lean struct {
		Githash string `json:"githash"`
		Version string `json:"version"`
	} `json:"lean"`
	Format struct {
		Version string `json:"version"`
	} `json:"format"`
}

var errNotDecl = errors.New("not a declaration record")

// constVals decodes an object or an array of objects.
func constVals(raw json.RawMessage) ([]constVal, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var vs []constVal
		if err := json.Unmarshal(raw, &vs); err != nil {
			return nil, err
		}
		return vs, nil
	}
	var v constVal
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return []constVal{v}, nil
}

// hints returns "abbrev", "opaque" or "regular".
func (c *constVal) hints() string {
	h := bytes.TrimSpace(c.Hints)
	switch {
	case bytes.Equal(h, []byte(`"abbrev"`)):
		return "abbrev"
	case bytes.Equal(h, []byte(`"opaque"`)):
		return "opaque"
	}
	return "regular"
}

func (c *constVal) check(what string) error {
	if c.Name == nil {
		return fmt.Errorf("%s without a name", what)
	}
	if c.Type == nil {
		return fmt.Errorf("%s without a type", what)
	}
	return nil
}
