package tomap

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/driftkit/driftkit/llm"
)

// agentRoles are the roles with their own --<role>-model and
// --<role>-base-url flags. The Rewriter is the Decomposer's model; the
// end-to-end baseline is the Prover's.
var agentRoles = []string{"decomposer", "formalizer", "prover", "judge", "sf"}

type agentFlag struct {
	model string
	urls  []string
}

type urlsValue struct{ dst *[]string }

func (u urlsValue) String() string {
	if u.dst == nil {
		return ""
	}
	return strings.Join(*u.dst, ",")
}
func (u urlsValue) Set(s string) error { *u.dst = append(*u.dst, llm.SplitURLs(s)...); return nil }

// AgentFlags are the per-agent model flags on top of llm's shared ones
// (--model, --base-url, limits, prices): every role uses --model at the
// shared endpoint unless --<role>-model or --<role>-base-url say otherwise.
// A role with its own base URL gets its own client (own concurrency and
// rate limits, the other limits copied) and its API key from
// DRIFTKIT_<ROLE>_API_KEY, else the shared key. The SF judge defaults to the
// rubric judge's model and endpoint.
type AgentFlags struct {
	Temperature float64
	MaxTokens   int
	roles       map[string]*agentFlag
}

// Register adds --decomposer-model, --decomposer-base-url, … and
// --temperature, --max-tokens to fs.
func (f *AgentFlags) Register(fs *flag.FlagSet) {
	f.roles = map[string]*agentFlag{}
	for _, r := range agentRoles {
		af := &agentFlag{}
		f.roles[r] = af
		what := r
		if r == "sf" {
			what = "semantic-faithfulness judge (default: the judge's)"
		}
		fs.StringVar(&af.model, r+"-model", "", "model of the "+what+" (default --model)")
		fs.Var(urlsValue{&af.urls}, r+"-base-url", "OpenAI-compatible API root of the "+what+", repeatable (default --base-url)")
	}
	fs.Float64Var(&f.Temperature, "temperature", 0.7, "sampling temperature of the decomposer, rewriter, formalizer and prover (judges use 0)")
	fs.IntVar(&f.MaxTokens, "max-tokens", 4096, "completion token limit per answer")
}

// Build makes the agents from the shared client configuration (after
// llm.Config.Finalize). It returns the models by role for the summary and
// a function closing the clients.
func (f *AgentFlags) Build(base llm.Config) (Agents, map[string]string, func(), error) {
	if f.roles == nil {
		return Agents{}, nil, nil, errors.New("tomap: AgentFlags.Register was not called")
	}
	if f.Temperature < 0 || f.Temperature > 2 {
		return Agents{}, nil, nil, fmt.Errorf("--temperature %v: want 0..2", f.Temperature)
	}
	eff := map[string]agentFlag{}
	for _, r := range agentRoles {
		eff[r] = *f.roles[r]
	}
	sf := eff["sf"]
	if sf.model == "" {
		sf.model = eff["judge"].model
	}
	if len(sf.urls) == 0 {
		sf.urls = eff["judge"].urls
	}
	eff["sf"] = sf
	clients := map[string]*llm.Client{}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	client := func(role string, urls []string) (*llm.Client, string, error) {
		cfg := base
		key := "shared"
		if len(urls) > 0 {
			cfg.BaseURLs = urls
			key = strings.Join(urls, ",")
			if k := os.Getenv("DRIFTKIT_" + strings.ToUpper(role) + "_API_KEY"); k != "" {
				cfg.APIKey = k
				key += "\x00" + role
			}
		}
		if c := clients[key]; c != nil {
			return c, strings.Join(c.Config().BaseURLs, ","), nil
		}
		if err := cfg.Validate(); err != nil {
			return nil, "", fmt.Errorf("--%s-base-url: %w", role, err)
		}
		c, err := llm.New(cfg)
		if err != nil {
			return nil, "", err
		}
		clients[key] = c
		closers = append(closers, c.Close)
		return c, strings.Join(c.Config().BaseURLs, ","), nil
	}
	models := map[string]string{}
	agents := map[string]*Agent{}
	var errs []error
	for _, r := range agentRoles {
		af := eff[r]
		model := af.model
		if model == "" {
			model = base.Model
		}
		if model == "" {
			errs = append(errs, fmt.Errorf("no model for the %s: give --model or --%s-model", r, r))
			continue
		}
		c, url, err := client(r, af.urls)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		agents[r] = &Agent{Client: c, Model: model, Temperature: float32(f.Temperature), MaxTokens: f.MaxTokens}
		models[r] = model + " @ " + url
	}
	if err := errors.Join(errs...); err != nil {
		closeAll()
		return Agents{}, nil, nil, err
	}
	return Agents{Decomposer: agents["decomposer"], Formalizer: agents["formalizer"], Prover: agents["prover"],
		Judge: agents["judge"], SF: agents["sf"]}, models, closeAll, nil
}

// ParseVariants turns --method and --rounds values into variants: methods
// comma-separated (tomap, proofflow, end2end), rounds a comma-separated
// list of ToMap budgets (the scaling study: "0,1,3,5,10").
func ParseVariants(methods, rounds string) ([]Variant, error) {
	var rs []int
	for _, f := range strings.Split(rounds, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(f, "%d", &n); err != nil || fmt.Sprint(n) != f || n < 0 {
			return nil, fmt.Errorf("--rounds: %q is not a round count (want e.g. 10 or 0,1,3,5,10)", f)
		}
		rs = append(rs, n)
	}
	if len(rs) == 0 {
		return nil, errors.New("--rounds: empty")
	}
	var out []Variant
	seen := map[string]bool{}
	for _, f := range strings.Split(methods, ",") {
		m := Method(strings.TrimSpace(f))
		if m == "" {
			continue
		}
		var vs []Variant
		switch m {
		case MethodToMap:
			for _, r := range rs {
				vs = append(vs, Variant{Method: m, Rounds: r})
			}
		case MethodProofFlow, MethodEnd2End:
			vs = []Variant{{Method: m}}
		default:
			return nil, fmt.Errorf("--method: unknown method %q (tomap, proofflow or end2end)", m)
		}
		for _, v := range vs {
			if !seen[v.Name()] {
				seen[v.Name()] = true
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--method: empty")
	}
	SortVariants(out)
	return out, nil
}
