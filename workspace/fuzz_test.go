package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addSeeds(f *testing.F, glob string) {
	paths, _ := filepath.Glob(glob)
	if len(paths) == 0 {
		f.Fatalf("no seeds in %s", glob)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzReadManifest: any manifest.json is read or refused with an error naming
// it; a manifest that reads can take a new entry and read back with it.
func FuzzReadManifest(f *testing.F) {
	addSeeds(f, "testdata/manifests/*.json")
	f.Add([]byte(`{"runs": [{"stage": "extract", "outputs": [{"path": "declarations.parquet", "sha256": "00"}]}]}`))
	f.Add([]byte(`{"runs": null}`))
	f.Add([]byte(`{"runs": [`))
	f.Fuzz(func(t *testing.T, b []byte) {
		w := &Workspace{Dir: t.TempDir()}
		if err := os.WriteFile(w.Path(ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := w.ReadManifest()
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != w.Path(ManifestFile) {
				t.Fatalf("error %v does not name the manifest", err)
			}
			return
		}
		n := len(m.Runs)
		m.LastRun("mine")
		if err := w.GuardOutputs(false, PairsFile); err != nil && !errors.Is(err, ErrForeignOutput) {
			t.Fatalf("GuardOutputs: %v", err)
		}
		if err := w.Record(Run{Stage: "fuzz"}); err != nil {
			t.Fatalf("Record on a manifest that reads: %v", err)
		}
		m2, err := w.ReadManifest()
		if err != nil || len(m2.Runs) != n+1 || m2.Runs[n].Stage != "fuzz" {
			t.Fatalf("after Record: %d runs (had %d), %v", len(m2.Runs), n, err)
		}
	})
}

// FuzzRecover: a commit record, whatever its content, is refused with an
// error naming it or recovered; a recovery never touches anything outside
// the workspace, never moves an output anywhere but over another version
// of itself, and leaves no record.
func FuzzRecover(f *testing.F) {
	addSeeds(f, "testdata/commits/*.json")
	f.Add([]byte(`{"format":"driftkit-commit/1","id":"x","ops":[{"op":"replace","src":".a.tmp-x","dest":"a","backup":".a.old-x","had_old":true,"sha256":"00","bytes":1}]}`))
	f.Add([]byte(`{"format":"driftkit-commit/1","id":"x","ops":[{"op":"remove","dest":"pairs.parquet","backup":".pairs.parquet.old-x","had_old":true}]}`))
	// an output named as the staged file of another (its sha256 is right:
	// only the rule that a staged path is a temporary refuses it)
	f.Add([]byte(`{"format":"driftkit-commit/1","id":"x","ops":[{"op":"replace","src":"declarations.parquet","dest":"pairs.parquet","backup":".pairs.parquet.old-x","had_old":true,` +
		`"sha256":"18ac3e7343f016890c510e93f935261169d9e3f565436429830faf0934f4f8e4","bytes":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		root := t.TempDir()
		outside := filepath.Join(root, "outside")
		os.WriteFile(outside, []byte("keep"), 0o644)
		w := &Workspace{Dir: filepath.Join(root, "ws")}
		os.MkdirAll(w.Path("index"), 0o755)
		files := map[string]string{"declarations.parquet": "d", "pairs.parquet": "p", "index/manifest.json": "m", ".a.tmp-x": "a"}
		for n, s := range files {
			os.WriteFile(w.Path(n), []byte(s), 0o644)
		}
		if err := os.WriteFile(w.Path(commitRecordFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, perr := parseCommitRecord(b)
		err := w.Recover()
		if perr != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != w.Path(commitRecordFile) {
				t.Fatalf("a bad record (%v) gave %v", perr, err)
			}
			return
		}
		if got, _ := os.ReadFile(outside); string(got) != "keep" {
			t.Fatal("recovery changed a file outside the workspace")
		}
		ents, _ := os.ReadDir(root)
		if len(ents) != 2 {
			t.Fatalf("recovery created files beside the workspace: %v", ents)
		}
		if err == nil && w.Has(commitRecordFile) {
			t.Fatal("record left after a successful recovery")
		}
		// the outputs that are still there hold their own content
		for n, s := range files {
			if strings.Contains(n, ".tmp-") {
				continue
			}
			if got, err := os.ReadFile(w.Path(n)); err == nil && string(got) != s && len(got) == 1 && strings.Contains("dpm", string(got)) {
				t.Fatalf("%s now holds another output's content %q", n, got)
			}
		}
	})
}

// FuzzTempOwner: any file name is classified without a panic, and the names
// this process makes carry its owner tag.
func FuzzTempOwner(f *testing.F) {
	for _, s := range []string{".build.tmp-1411982478", ".hf.tmp-77.old", "declarations.parquet", ".x.tmp-p1s2b3-4",
		".vectors.npy.tmp-p18585s417975b6a4a0e83-ba5ced6fa628", ".bm25.old-p18585s417975b6a4a0e83-c1231980d822", ".tmp-", ".old-p-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		tag, isTemp := tempOwner(name)
		if tag != "" {
			if !isTemp {
				t.Fatal("an owner without a temporary")
			}
			ownerAlive(tag)
		}
		if strings.ContainsAny(name, "/\x00") || name == "" {
			return
		}
		if tag, ok := tempOwner(tempName(name)); !ok || tag != ownerTag() {
			t.Fatalf("tempName(%q) = %q: owner %q, temporary %v", name, tempName(name), tag, ok)
		}
	})
}
