package lean4export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/extract/elab"
	"github.com/driftkit/driftkit/workspace"
)

type discard struct{ n int }

func (d *discard) Add(workspace.Declaration) error { d.n++; return nil }

func seedLines(f *testing.F) []string {
	b, err := os.ReadFile(filepath.Join("testdata", "demo.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// refNumber decodes what encoding/json sees at key k of an object.
func refUint(m map[string]any, k string) (uint32, bool) {
	v, ok := m[k].(float64)
	if !ok || v < 0 || v != float64(uint32(v)) {
		return 0, false
	}
	return uint32(v), true
}

// FuzzPrimitive checks the hand-written scanner against encoding/json: any
// line it accepts must be valid JSON whose id and operands are the ones
// encoding/json reads.
func FuzzPrimitive(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"ie":3,"strVal":"a\u00e9\ud83d\ude00\\\"x"}`))
	f.Add([]byte(`{"ie":3 , "natVal" : 12345678901234567890}`))
	f.Add([]byte(`{"app":{"arg":2,"fn":1},"ie":3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var sc scanner
		p, ok, bad := parsePrimitive(line, &sc)
		if !ok || bad {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("accepted invalid JSON %q: %v", line, err)
		}
		idKey := map[int]string{tabName: "in", tabLevel: "il", tabExpr: "ie"}[p.tab]
		id, okID := refUint(m, idKey)
		if _, alt := m["i"]; !okID && alt {
			id, okID = refUint(m, "i")
		}
		if !okID || id != p.id {
			t.Fatalf("%q: id %d, encoding/json says %v", line, p.id, m[idKey])
		}
		if p.tab == tabExpr && p.kind == exApp {
			app, _ := m["app"].(map[string]any)
			fn, ok1 := refUint(app, "fn")
			arg, ok2 := refUint(app, "arg")
			if !ok1 || !ok2 || fn != p.a || arg != p.b {
				t.Fatalf("%q: app %d %d, encoding/json says %v", line, p.a, p.b, app)
			}
		}
		if p.tab == tabName && !p.num {
			s, _ := m["str"].(map[string]any)
			if str, _ := s["str"].(string); str != string(p.str) {
				t.Fatalf("%q: component %q, encoding/json says %q", line, p.str, str)
			}
		}
	})
}

// FuzzImport feeds arbitrary files to the importer: it must not panic, and
// every failure must be a *elab.RecordError naming a line.
func FuzzImport(f *testing.F) {
	lines := seedLines(f)
	f.Add([]byte(strings.Join(lines, "\n")))
	f.Add([]byte(strings.Join(lines[:30], "\n")))
	f.Add([]byte(lines[0] + "\n" + `{"ie":0,"app":{"fn":0,"arg":0}}`))
	f.Add([]byte("1 #NS 0 Nat\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		im := newImporter("fuzz.ndjson", Options{Library: "f"}, &discard{})
		err := im.read(context.Background(), bytes.NewReader(data), nil)
		if err == nil {
			err = im.finish()
		}
		if err != nil {
			var re *elab.RecordError
			if !errors.As(err, &re) || re.Line < 0 {
				t.Fatalf("error %v (%T) is not a RecordError with a line", err, err)
			}
		}
	})
}

// TestSkipNumber: a value the scanner skips is a JSON number exactly when
// encoding/json says so (FuzzPrimitive found `00` accepted; ParseFloat also
// took +1, 1. and .5).
func TestSkipNumber(t *testing.T) {
	for _, v := range []string{"0", "-0", "10", "00", "01", "-01", "+1", "1.", ".5", "1.5", "1e5", "1E+5", "1e-5", "1e", "1e+",
		"-", "--1", "1.2.3", "0.0", "-0.5e10", "1 .5", "- 1", "1e5e5", "12345678901234567890", "0x10", "Infinity", "NaN"} {
		line := []byte(`{"a":` + v + `}`)
		sc := scanner{b: line}
		sc.skip(0)
		got := !sc.bad && sc.i == len(line)
		if want := json.Valid(line); got != want {
			t.Errorf("%s: scanner accepts %v, encoding/json %v", v, got, want)
		}
	}
}
