package informalize

import (
	"errors"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/internal/journal"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		in      string
		name    string
		wantErr string
	}{
		{`{"informal_name": "Primes are at least two", "informal_statement": "Every prime p satisfies 2 ≤ p."}`, "Primes are at least two", ""},
		{"  \n```json\n{\"informal_name\": \"Ab\", \"informal_statement\": \"B is a set.\"}\n```\n", "Ab", ""},
		{"```\n{\"informal_name\": \"Ab\", \"informal_statement\": \"B is a set.\"}\n```", "Ab", ""},
		{`{"informal_statement": "B is a set.", "informal_name": " Ab "}`, "Ab", ""},
		// The prompt's template copied back, and answers with no words.
		{`{"informal_name": "...", "informal_statement": "...}"}`, "", "placeholder"},
		{`{"informal_name": "Prime numbers", "informal_statement": "…"}`, "", "placeholder"},
		{`{"informal_name": "A", "informal_statement": "Every prime is at least two."}`, "", "placeholder"},
		{`{"informal_name": "Prime numbers", "informal_statement": "Primes."}`, "", "1 words"},
		{``, "", "empty content"},
		{`Sure! {"informal_name": "A", "informal_statement": "B"}`, "", "does not start"},
		{`{"informal_name": "A", "informal_statement": "B"} thanks`, "", "after the JSON"},
		{`{"informal_name": "A", "informal_statement": "B"}{"x":1}`, "", "after the JSON"},
		{`{"informal_name": "A"}`, "", "informal_statement missing"},
		{`{"informal_name": "", "informal_statement": "B"}`, "", "informal_name missing"},
		{`{"informal_name": "A", "informal_statement": "B", "extra": 1}`, "", "unexpected field"},
		{`{"informal_name": "A", "informal_name": "C", "informal_statement": "B"}`, "", "given twice"},
		{`{"informal_name": 3, "informal_statement": "B"}`, "", "not a string"},
		{`{"informal_name": null, "informal_statement": "B"}`, "", "not a string"},
		{`{"informal_name": "A\nB", "informal_statement": "B"}`, "", "several lines"},
		{`{"informal_name": "A", "informal_statement": "B"`, "", "unterminated"},
		{"```python\n{\"informal_name\": \"A\", \"informal_statement\": \"B\"}\n```", "", "code fence"},
		{"```json\n{\"informal_name\": \"A\"", "", "unterminated code fence"},
		{`{"informal_name": "` + strings.Repeat("x", 300) + `", "informal_statement": "B"}`, "", "at most"},
		{`[{"informal_name": "A", "informal_statement": "B"}]`, "", "does not start"},
		{"{informal_name: oops", "", "not a JSON object"},
	} {
		a, err := ParseAnswer(tc.in)
		if tc.wantErr == "" {
			if err != nil || a.InformalName != tc.name {
				t.Errorf("%q: got %+v, %v", tc.in, a, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%q: err %v, want %q", tc.in, err, tc.wantErr)
		}
	}
}

// TestParseAnswerLaTeX: LaTeX with one backslash decodes to the LaTeX,
// not to control characters (\frac as a form feed) or an error (\sum).
func TestParseAnswerLaTeX(t *testing.T) {
	a, err := ParseAnswer(`{"informal_name": "Sum of fractions", "informal_statement": "For $b \neq 0$, $\sum_i \frac{a_i}{b} \times 2$ holds."}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `For $b \neq 0$, $\sum_i \frac{a_i}{b} \times 2$ holds.`; a.InformalStatement != want {
		t.Errorf("statement %q, want %q", a.InformalStatement, want)
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"informal_name": "A", "informal_statement": "B"}`, "```json\n{}\n```", `{"informal_name": "A"`, "", "{", `{"a":[1,{"b":2}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAnswer(s)
		if err == nil && (a.InformalName == "" || a.InformalStatement == "" || strings.ContainsAny(a.InformalName, "\n\r")) {
			t.Fatalf("accepted %q as %+v", s, a)
		}
		if err != nil && !errors.Is(err, ErrBadAnswer) {
			t.Fatalf("error %v does not wrap ErrBadAnswer", err)
		}
	})
}

func TestReadJournal(t *testing.T) {
	good := `{"name":"a","status":"ok","input_sha256":"` + strings.Repeat("0", 64) + `","informal_name":"n","informal_statement":"s","provider":"p","prompt_version":"v1","prompt_tokens":1,"completion_tokens":2,"created_at":"t"}`
	failed := `{"name":"b","status":"failed","input_sha256":"` + strings.Repeat("1", 64) + `","provider":"p","prompt_version":"v1","prompt_tokens":0,"completion_tokens":0,"error":"x","created_at":"t"}`
	for _, tc := range []struct {
		in                 string
		entries, bad, torn int
		badLine            int
	}{
		{"", 0, 0, 0, 0},
		{good + "\n" + failed + "\n", 2, 0, 0, 0},
		{good + "\n\n" + failed + "\n", 2, 0, 0, 0},
		{good + "\n" + `{"name":"c","sta`, 1, 0, 1, 0},
		{good + "\n{\"name\":\"c\"}\n" + good + "\n", 2, 1, 0, 2},
		{`{"name":"c","status":"ok","input_sha256":"short"}` + "\n", 0, 1, 0, 1},
		{`{"name":"c","status":"ok","input_sha256":"` + strings.Repeat("0", 64) + `"}` + "\n", 0, 1, 0, 1},
		{good + " trailing\n", 0, 1, 0, 1},
		{strings.Replace(good, `"name":"a"`, `"name":"a","bogus":1`, 1) + "\n", 0, 1, 0, 1},
	} {
		rep, err := journal.Read("j", strings.NewReader(tc.in), journalOptions)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Records) != tc.entries || len(rep.Bad) != tc.bad || (rep.TornBytes > 0) != (tc.torn > 0) {
			t.Errorf("%q: %d entries %d bad torn=%d", tc.in, len(rep.Records), len(rep.Bad), rep.TornBytes)
			continue
		}
		if tc.bad > 0 && (rep.Bad[0].Line != tc.badLine || !errors.Is(rep.Bad[0], journal.ErrLine) || !strings.HasPrefix(rep.Bad[0].Error(), "j:")) {
			t.Errorf("%q: bad line error %v", tc.in, rep.Bad[0])
		}
		if want := int64(len(tc.in) - rep.TornBytes); rep.GoodSize != want {
			t.Errorf("%q: good size %d, want %d", tc.in, rep.GoodSize, want)
		}
	}
}

func FuzzReadJournal(f *testing.F) {
	f.Add([]byte(`{"name":"a","status":"ok","input_sha256":"` + strings.Repeat("0", 64) + `","informal_name":"n","informal_statement":"s"}` + "\n"))
	f.Add([]byte("\n\n{\"name\""))
	f.Add([]byte("{}\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := journal.Read("f", strings.NewReader(string(b)), journalOptions)
		if err != nil {
			t.Fatal(err)
		}
		if rep.GoodSize+int64(rep.TornBytes) != int64(len(b)) {
			t.Fatalf("sizes %d + %d != %d", rep.GoodSize, rep.TornBytes, len(b))
		}
		for _, e := range rep.Records {
			if e.Name == "" || len(e.InputSHA256) != 64 || validateEntry(&e) != nil {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

func TestReadBatchOutput(t *testing.T) {
	in := `{"id":"r1","custom_id":"A.b","response":{"status_code":200,"request_id":"q","body":{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"informal_name\":\"n\",\"informal_statement\":\"s\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}},"error":null}
{"id":"r2","custom_id":"A.c","response":{"status_code":429,"body":{"error":{"message":"slow down"}}},"error":null}
{"id":"r3","custom_id":"A.d","response":null,"error":{"code":"x","message":"failed"}}

{"id":"r4","response":null}
not json
{"id":"r5","custom_id":"A.e","response":{"status_code":200,"body":"nope"}}
`
	as, bad, err := ReadBatchOutput("out.jsonl", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 3 || as[0].Content == "" || as[0].PromptTokens != 10 || as[1].Error == "" || as[2].Error == "" {
		t.Errorf("answers %+v", as)
	}
	if len(bad) != 3 || bad[0].Line != 5 || bad[1].Line != 6 || bad[2].Line != 7 || !errors.Is(bad[0], ErrBatchLine) {
		t.Errorf("bad %v", bad)
	}
}

func FuzzReadBatchOutput(f *testing.F) {
	f.Add([]byte(`{"id":"r1","custom_id":"A.b","response":{"status_code":200,"body":{"choices":[{"message":{"content":"x"}}]}}}` + "\n"))
	f.Add([]byte(`{"custom_id":"x","error":{"message":"m"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		as, _, _ := ReadBatchOutput("f", strings.NewReader(string(b)))
		for _, a := range as {
			if a.CustomID == "" {
				t.Fatalf("answer without custom_id: %+v", a)
			}
		}
	})
}

func TestGraphBreaksCyclesDeterministically(t *testing.T) {
	names := []string{"d", "c", "b", "a", "e"}
	// d→c→b→d is a cycle; a→a self loop; e→a.
	adj := [][]int32{{1}, {2}, {0}, {3}, {3, 3}}
	g := BuildGraph(names, adj)
	if g.Cyclic != 3 || g.Dropped != 2 {
		t.Fatalf("cyclic %d dropped %d", g.Cyclic, g.Dropped)
	}
	// Kept: d→c, c→b (names decrease); dropped b→d and a→a.
	want := [][]int32{{1}, {2}, nil, nil, {3}}
	for v := range want {
		if len(g.Deps[v]) != len(want[v]) || (len(want[v]) > 0 && g.Deps[v][0] != want[v][0]) {
			t.Errorf("deps[%s] = %v, want %v", names[v], g.Deps[v], want[v])
		}
	}
	// A long chain does not overflow the stack.
	n := 200000
	names = make([]string, n)
	adj = make([][]int32, n)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + strings.Repeat("x", i%5)
		if i > 0 {
			adj[i] = []int32{int32(i - 1)}
		}
	}
	adj[0] = []int32{int32(n - 1)} // one big cycle
	g = BuildGraph(names, adj)
	if g.Cyclic != n || g.Dropped == 0 {
		t.Errorf("big cycle: cyclic %d dropped %d", g.Cyclic, g.Dropped)
	}
}
