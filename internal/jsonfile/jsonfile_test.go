package jsonfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errKind = errors.New("bad table file")

func TestReadStrict(t *testing.T) {
	dir := t.TempDir()
	type table struct {
		Words map[string]string `json:"words"`
	}
	for _, c := range []struct {
		text, want string
	}{
		{"{\"words\": {\"a\": \"b\"}}\n", ""},
		{"{\n  \"words\": {},\n  \"wrods\": {}\n}\n", ":3: bad table file: json: unknown field \"wrods\" (want words)"},     // the key's line
		{"{\n  \"words\": {\"wrods\": \"x\"},\n  \"wrods\" : {}\n}\n", ":1: bad table file: json: unknown field \"wrods\""}, // a key twice: no line is sure
		{"{\n  \"words\": {\n    \"a\": 1\n  }\n}\n", ":3: bad table file"},
		{"{\n  \"words\": {\n", ":3: bad table file"},
		{"{\n  \"words\": {}\n}\n{}\n", ": bad table file: more than one JSON value"},
		{"{\n  \"words\" {}\n}\n", ":2: bad table file"},
	} {
		path := filepath.Join(dir, "t.json")
		os.WriteFile(path, []byte(c.text), 0o644)
		var v table
		err := ReadStrict(path, &v, errKind, "words")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.want != "" && (!errors.Is(err, errKind) || !strings.HasPrefix(err.Error(), path+c.want)):
			t.Errorf("%q: %v, want %q", c.text, err, path+c.want)
		}
	}
	if err := ReadStrict(filepath.Join(dir, "missing.json"), &struct{}{}, errKind, ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
