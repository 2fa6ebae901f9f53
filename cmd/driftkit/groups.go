package main

// The verbs that group subcommands (eval extract, export hf, …) with more
// than one file contributing to them; lean and cache, whose subcommands
// share one file, register their group there.
func init() {
	group("eval", "evaluate extraction or retrieval against references")
	group("export", "export pairs for FlagEmbedding or as a Hugging Face dataset")
	group("import", "import an external corpus into a workspace")
	group("train", "train retrieval models")
}
