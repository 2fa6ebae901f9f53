package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type rec struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}

func validate(r *rec) error {
	if r.Key == "" {
		return errors.New("no key")
	}
	return nil
}

func TestReplayTornAndBad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	body := `{"key":"a","n":1}` + "\n" + `not json` + "\n" + `{"n":2}` + "\n" + `{"key":"b","n":3,"extra":1}` + "\n" + `{"key":"c"`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	j, rep, err := Open(p, Options[rec]{Strict: true, Validate: validate})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Records) != 1 || rep.Records[0].Key != "a" {
		t.Errorf("records %+v", rep.Records)
	}
	if len(rep.Bad) != 3 || rep.Bad[0].Line != 2 || rep.Bad[1].Line != 3 || rep.Bad[2].Line != 4 {
		t.Errorf("bad %v", rep.Bad)
	}
	for _, b := range rep.Bad {
		if !errors.Is(b, ErrLine) || !strings.Contains(b.Error(), p) {
			t.Errorf("bad line error %v", b)
		}
	}
	if rep.TornLine != 5 || rep.TornBytes == 0 {
		t.Errorf("torn %d %d", rep.TornLine, rep.TornBytes)
	}
	if err := j.Append(rec{Key: "d", N: 4}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	_, rep, err = Open(p, Options[rec]{Validate: validate})
	if err != nil {
		t.Fatal(err)
	}
	// The torn line is gone; the unknown field is accepted when not strict.
	keys := []string{}
	for _, r := range rep.Records {
		keys = append(keys, r.Key)
	}
	if strings.Join(keys, ",") != "a,b,d" || rep.TornBytes != 0 {
		t.Errorf("after reopen: %v torn %d", keys, rep.TornBytes)
	}
}

// TestBeforeCutSeesTheTornLine: the hook runs while the torn line is still
// in the file, so a process killed after reporting it and before the cut
// reports it again next time, and one killed after the cut has reported it.
func TestBeforeCutSeesTheTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	body := `{"key":"a","n":1}` + "\n" + `{"key":"b"`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	j, _, err := Open(p, Options[rec]{BeforeCut: func(line, bytes int) {
		calls++
		b, _ := os.ReadFile(p)
		if string(b) != body || line != 2 || bytes != len(`{"key":"b"`) {
			t.Errorf("BeforeCut(%d, %d) with the file %q", line, bytes, b)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if calls != 1 {
		t.Fatalf("BeforeCut called %d times, want 1", calls)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"key":"a","n":1}`+"\n" {
		t.Fatalf("after the cut: %q", b)
	}
	if _, _, err := Open(p, Options[rec]{BeforeCut: func(int, int) { calls++ }}); err != nil || calls != 1 {
		t.Fatalf("a journal without a torn line: BeforeCut called (%d), err %v", calls, err)
	}
}

func TestConcurrentAppendsNeverInterleave(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, _, err := Open(p, Options[rec]{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if err := j.Append(rec{Key: strings.Repeat("x", 100*g+1), N: i}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	_, rep, err := Open(p, Options[rec]{Strict: true, Validate: validate})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Records) != 1600 || len(rep.Bad) != 0 {
		t.Errorf("%d records, %d bad", len(rep.Records), len(rep.Bad))
	}
}

// FuzzRead: any journal bytes replay without an error; every byte is in a
// complete line or the torn tail; bad lines name the file and their line;
// and the journal reopens for appending with the torn tail cut off and the
// good records kept.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	if len(paths) == 0 {
		f.Fatal("no seeds in testdata")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "j.jsonl")
		rep, err := Read(p, strings.NewReader(string(b)), Options[rec]{Strict: true, Validate: validate})
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if rep.GoodSize+int64(rep.TornBytes) != int64(len(b)) {
			t.Fatalf("good %d + torn %d != %d bytes", rep.GoodSize, rep.TornBytes, len(b))
		}
		lines := strings.Count(string(b), "\n")
		if len(rep.Records)+len(rep.Bad) > lines {
			t.Fatalf("%d records and %d bad lines from %d lines", len(rep.Records), len(rep.Bad), lines)
		}
		for _, e := range rep.Bad {
			if e.Line < 1 || e.Line > lines || !errors.Is(e, ErrLine) || !strings.Contains(e.Error(), p) {
				t.Fatalf("bad line error %v (line %d of %d)", e, e.Line, lines)
			}
		}
		for _, r := range rep.Records {
			if r.Key == "" {
				t.Fatal("a record that fails validation was kept")
			}
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		j, rep2, err := Open(p, Options[rec]{Strict: true, Validate: validate})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if len(rep2.Records) != len(rep.Records) {
			t.Fatalf("Open replayed %d records, Read %d", len(rep2.Records), len(rep.Records))
		}
		if err := j.Append(rec{Key: "fuzz", N: 1}); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		_, rep3, err := Open(p, Options[rec]{Strict: true, Validate: validate})
		if err != nil {
			t.Fatal(err)
		}
		if rep3.TornBytes != 0 || len(rep3.Records) != len(rep.Records)+1 || rep3.Records[len(rep3.Records)-1].Key != "fuzz" {
			t.Fatalf("after append: %d records (want %d), torn %d", len(rep3.Records), len(rep.Records)+1, rep3.TornBytes)
		}
	})
}

// TestSecondOpenRefused: while one Journal holds a file, a second Open of it
// (another run on the same output folder) fails with ErrBusy and leaves the
// file alone — it used to cut the first run's unfinished line as torn —
// and succeeds once the first is closed.
func TestSecondOpenRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, _, err := Open[rec](path, Options[rec]{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(rec{Key: "a", N: 1}); err != nil {
		t.Fatal(err)
	}
	j.Sync()
	// a line the first run has only half written
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"key":"b",`)
	f.Close()
	before, _ := os.ReadFile(path)
	if _, _, err := Open[rec](path, Options[rec]{}); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open: %v, want ErrBusy naming the file", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("the refused open changed the file: %q → %q", before, after)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, rep, err := Open[rec](path, Options[rec]{})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if len(rep.Records) != 1 || rep.TornBytes == 0 {
		t.Fatalf("replay after close: %+v", rep)
	}
}
