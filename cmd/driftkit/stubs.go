package main

import "context"

// notBuilt registers a stage whose issue has not landed: --help describes it,
// running it exits 2. Remove an entry when its cmd_<verb>.go lands.
func notBuilt(name, short, synopsis, description string) *command {
	return &command{name: name, short: short + " (not built yet)", run: func(ctx context.Context, args []string) error {
		fs := newFlags(name, synopsis, description)
		fs.String("ws", "", "workspace folder")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		return notBuiltError{name}
	}}
}

func init() {
	group("eval", "evaluate extraction or retrieval against references")
	group("export", "export pairs for FlagEmbedding or as a Hugging Face dataset")
	group("import", "import an external corpus into a workspace")
	group("train", "train retrieval models")

	for _, c := range []*command{
		notBuilt("extract", "Lean sources → declarations.parquet, modules.parquet", "--src DIR --library NAME --ws WS",
			"Reads Lean 4 sources and writes one row per declaration with resolved statement and proof dependencies."),
		notBuilt("informalize", "declarations → informal.parquet (LLM or template)", "--ws WS [--model M]",
			"Writes an informal name and statement for each declaration, dependencies first."),
		notBuilt("mine", "training pairs with hard negatives → pairs.parquet", "--ws WS",
			"Mines dependency-retrieval training pairs with hard negatives."),
		notBuilt("index", "dense vectors, BM25 and usage graph → index/", "--ws WS [--encoder hash|openai]",
			"Builds the retrieval index of a workspace."),
		notBuilt("search", "search the index for premises", "--ws WS \"query\"",
			"Ranks premises for an informal statement."),
		notBuilt("serve", "HTTP API, search page, DRIFT and ToMap runners", "--ws WS [--addr :8080]",
			"Serves the index over HTTP."),
	} {
		if commands[c.name] == nil {
			register(c)
		}
	}
	for _, s := range []struct {
		group string
		cmd   *command
	}{
		{"eval", notBuilt("extract", "compare declarations with an elaborated reference", "--ws WS --reference FILE", "Name recall/precision and statement-dependency F1 against RAutoformalizer's library format.")},
		{"eval", notBuilt("retrieval", "retrieval metrics on a benchmark", "--ws WS --bench FILE", "P@k, R@k, F1@k, nDCG@k and MRR on a benchmark file.")},
		{"export", notBuilt("flagembedding", "FlagEmbedding fine-tuning files", "--ws WS", "train.jsonl, valid.jsonl, corpus.jsonl and finetune.sh.")},
		{"export", notBuilt("hf", "Hugging Face dataset folder", "--ws WS --license ID", "A dataset card and Parquet shards.")},
		{"import", notBuilt("rauto", "RAutoformalizer library.jsonl", "--library FILE --ws WS", "Loads RAutoformalizer's library into workspace tables.")},
		{"train", notBuilt("head", "projection head over frozen embeddings", "--ws WS", "Trains a projection head with Gorgonia.")},
	} {
		if subcommands[s.group][s.cmd.name] == nil {
			registerSub(s.group, s.cmd)
		}
	}
}
