package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestScrubPaths(t *testing.T) {
	dir := t.TempDir()
	ws := &Workspace{Dir: filepath.Join(dir, "ws")}
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"declarations.parquet", "declarations.parquet"},
		{dir + "/bench/connf.jsonl", "connf.jsonl"},
		{dir + "/ws/index/gen-1/manifest.json", "index/gen-1/manifest.json"},
		{"decontamination: dropped 3 pairs matching " + dir + "/b/dev.jsonl (name)", "decontamination: dropped 3 pairs matching dev.jsonl (name)"},
		{"files " + dir + "/a.jsonl, " + dir + "/b.jsonl; done", "files a.jsonl, b.jsonl; done"},
		{"--exclude=/home/someone/bench.jsonl", "--exclude=bench.jsonl"},
		{`"/tmp/x/y.json"`, `"y.json"`},
		{"ratio 1/2 and a/b/c stay", "ratio 1/2 and a/b/c stay"},
		{"https://example.org/a/b stays", "https://example.org/a/b stays"},
		{"(" + dir + "/q.txt)", "(q.txt)"},
	} {
		if got := ws.ScrubPaths(c.in); got != c.want {
			t.Errorf("ScrubPaths(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	in := map[string]any{"exclude": []any{dir + "/b.jsonl"}, "seed": 1.0, "names": []string{"/x/y"}, "nested": map[string]any{"p": "/a/b/c"}}
	want := map[string]any{"exclude": []any{"b.jsonl"}, "seed": 1.0, "names": []string{"y"}, "nested": map[string]any{"p": "c"}}
	if got := ws.ScrubValue(in); !reflect.DeepEqual(got, want) {
		t.Errorf("ScrubValue = %v, want %v", got, want)
	}
}

func TestLeakedPath(t *testing.T) {
	home, tmp := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	ws := &Workspace{Dir: filepath.Join(t.TempDir(), "ws")}
	abs, _ := filepath.Abs(ws.Dir)
	wd, _ := os.Getwd()
	for _, p := range []string{home + "/x", tmp + "/y", abs + "/export", wd} {
		if ws.LeakedPath("see "+p) == "" {
			t.Errorf("LeakedPath misses %s", p)
		}
	}
	if p := ws.LeakedPath("export/hf/README.md, bench.jsonl (sha256 ab12)"); p != "" {
		t.Errorf("LeakedPath found %s in a clean text", p)
	}
}
