package main

func init() {
	group("eval", "evaluate extraction or retrieval against references")
	group("export", "export pairs for FlagEmbedding or as a Hugging Face dataset")
	group("import", "import an external corpus into a workspace")
	group("train", "train retrieval models")
}
