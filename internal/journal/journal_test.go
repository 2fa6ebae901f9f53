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
