package train

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestFinetuneScriptGolden(t *testing.T) {
	got := DRIFTRecipe().Script()
	path := filepath.Join("testdata", "finetune.sh.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("finetune.sh differs from %s (go test -update to accept)", path)
	}
}

// TestDRIFTHyperparameters pins the values the issue lists, independently of
// the golden file.
func TestDRIFTHyperparameters(t *testing.T) {
	s := DRIFTRecipe().Script()
	for _, want := range []string{
		"-m FlagEmbedding.finetune.embedder.encoder_only.m3",
		"--num_train_epochs 1 ", "--learning_rate 5e-06 ", "--warmup_ratio 0.1 ", "--weight_decay 0.01 ",
		"--per_device_train_batch_size 32 ", "--train_group_size 4 ", "--query_max_len 1024 ", "--passage_max_len 1024 ",
		"--sentence_pooling_method cls ", "--normalize_embeddings True ", "--temperature 0.02 ",
		"--negatives_cross_device True ", "--same_dataset_within_batch True ", "--unified_finetuning True ",
		"--kd_loss_type m3_kd_loss ", `MODEL="${MODEL:-BAAI/bge-m3}"`, `--nproc_per_node "$NUM_GPUS"`,
		`--train_data "$DATA/train.jsonl"`, `--output_dir "$OUTPUT"`, `"$@"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("finetune.sh lacks %q", want)
		}
	}
}
