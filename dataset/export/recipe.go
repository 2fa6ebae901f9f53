package export

import (
	"fmt"
	"strconv"
	"strings"
)

// Recipe is a FlagEmbedding fine-tuning configuration
// (`torchrun -m FlagEmbedding.finetune.embedder.encoder_only.m3`).
type Recipe struct {
	Model                  string  // default model (the script's MODEL variable)
	Epochs                 int     // --num_train_epochs
	LearnRate              float64 // --learning_rate
	WarmupRatio            float64 // --warmup_ratio
	WeightDecay            float64 // --weight_decay
	BatchSize              int     // --per_device_train_batch_size
	TrainGroupSize         int     // --train_group_size (1 positive + negatives)
	QueryMaxLen            int     // --query_max_len
	PassageMaxLen          int     // --passage_max_len
	Pooling                string  // --sentence_pooling_method
	Normalize              bool    // --normalize_embeddings
	Temperature            float64 // --temperature
	NegativesCrossDevice   bool    // --negatives_cross_device
	SameDatasetWithinBatch bool    // --same_dataset_within_batch
	UnifiedFinetuning      bool    // --unified_finetuning (dense + sparse + ColBERT)
	KDLossType             string  // --kd_loss_type
}

// DRIFTRecipe is the configuration DRIFT fine-tuned BGE-M3 with.
func DRIFTRecipe() Recipe {
	return Recipe{Model: "BAAI/bge-m3", Epochs: 1, LearnRate: 5e-6, WarmupRatio: 0.1, WeightDecay: 0.01,
		BatchSize: 32, TrainGroupSize: 4, QueryMaxLen: 1024, PassageMaxLen: 1024, Pooling: "cls", Normalize: true,
		Temperature: 0.02, NegativesCrossDevice: true, SameDatasetWithinBatch: true, UnifiedFinetuning: true,
		KDLossType: "m3_kd_loss"}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Args are the recipe's FlagEmbedding arguments, excluding the model, data and
// output paths (which the script takes from variables).
func (r Recipe) Args() []string {
	b := func(v bool) string {
		if v {
			return "True"
		}
		return "False"
	}
	return []string{
		"--num_train_epochs", strconv.Itoa(r.Epochs),
		"--learning_rate", fmtFloat(r.LearnRate),
		"--warmup_ratio", fmtFloat(r.WarmupRatio),
		"--weight_decay", fmtFloat(r.WeightDecay),
		"--per_device_train_batch_size", strconv.Itoa(r.BatchSize),
		"--train_group_size", strconv.Itoa(r.TrainGroupSize),
		"--query_max_len", strconv.Itoa(r.QueryMaxLen),
		"--passage_max_len", strconv.Itoa(r.PassageMaxLen),
		"--pad_to_multiple_of", "8",
		"--sentence_pooling_method", r.Pooling,
		"--normalize_embeddings", b(r.Normalize),
		"--temperature", fmtFloat(r.Temperature),
		"--negatives_cross_device", b(r.NegativesCrossDevice),
		"--same_dataset_within_batch", b(r.SameDatasetWithinBatch),
		"--unified_finetuning", b(r.UnifiedFinetuning),
		"--kd_loss_type", r.KDLossType,
		"--knowledge_distillation", "False",
		"--dataloader_drop_last", "True",
		"--logging_steps", "10",
		"--save_steps", "1000",
	}
}

// Script is finetune.sh: the torchrun command with the recipe, with MODEL,
// DATA, OUTPUT, NUM_GPUS and PRECISION as overridable variables and extra
// arguments passed through (later arguments win).
func (r Recipe) Script() string {
	var s strings.Builder
	fmt.Fprintf(&s, `#!/usr/bin/env bash
# Fine-tune an embedding model on driftkit's dependency-retrieval pairs with
# FlagEmbedding (pip install FlagEmbedding), using DRIFT's recipe for BGE-M3.
# Written by driftkit export flagembedding; regenerate instead of editing.
#
# Variables (environment):
#   MODEL      model name or local path          (default %s)
#   DATA       folder with train.jsonl            (default: this script's folder)
#   OUTPUT     where the fine-tuned model goes    (default ./driftkit-finetuned)
#   NUM_GPUS   processes for torchrun             (default: all visible GPUs, at least 1)
#   PRECISION  mixed-precision flag               (default --fp16; set PRECISION= on CPU)
# Extra arguments are appended, and override the recipe, e.g.
#   ./finetune.sh --max_steps 100 --per_device_train_batch_size 8
#
# With --same_dataset_within_batch, FlagEmbedding prepends each example's
# "prompt" to its query ("" here: BGE-M3 uses no query instruction).
# Hard negatives can be re-mined with the model being trained, using
# corpus.jsonl as hn_mine's --candidate_pool.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL="${MODEL:-%s}"
DATA="${DATA:-$HERE}"
OUTPUT="${OUTPUT:-./driftkit-finetuned}"
if [ -z "${NUM_GPUS:-}" ]; then
  NUM_GPUS=$( (command -v nvidia-smi >/dev/null && nvidia-smi -L | wc -l) || echo 1)
  [ "$NUM_GPUS" -ge 1 ] 2>/dev/null || NUM_GPUS=1
fi
PRECISION="${PRECISION---fp16}"

exec torchrun --nproc_per_node "$NUM_GPUS" \
  -m FlagEmbedding.finetune.embedder.encoder_only.m3 \
  --model_name_or_path "$MODEL" \
  --train_data "$DATA/train.jsonl" \
  --output_dir "$OUTPUT" \
`, r.Model, r.Model)
	args := r.Args()
	for i := 0; i < len(args); i += 2 {
		fmt.Fprintf(&s, "  %s %s \\\n", args[i], args[i+1])
	}
	s.WriteString("  $PRECISION \\\n  \"$@\"\n")
	return s.String()
}
