package main

import "context"

// notBuilt registers a stage whose issue has not landed: --help describes it,
// running it exits 2. Remove an entry when its cmd_<verb>.go lands.
func notBuilt(name, short, synopsis, description string) *command {
	return &command{name: name, short: short + " (not built yet)", run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags(name, synopsis, description)
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
		notBuilt("serve", "HTTP API, search page, DRIFT and ToMap runners", "--ws WS [--addr :8080]",
			"Serves the index over HTTP."),
	} {
		if commands[c.name] == nil {
			register(c)
		}
	}
}
