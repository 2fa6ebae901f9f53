package export

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

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

// runScript runs a recipe's finetune.sh with a fake torchrun on PATH that
// prints its arguments, one per line, and returns them.
func runScript(t *testing.T, r Recipe, env []string, extra ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "torchrun"), []byte("#!/usr/bin/env bash\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "finetune.sh")
	if err := os.WriteFile(script, []byte(r.Script()), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{script}, extra...)...)
	cmd.Env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("finetune.sh: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}

// flagValues reads "--name value" pairs; a later repeat wins, as in argparse.
func flagValues(t *testing.T, args []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "--") {
			t.Fatalf("argument %d %q is not a flag: %q", i, args[i], args)
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			m[args[i]] = args[i+1]
			i++
		} else {
			m[args[i]] = ""
		}
	}
	return m
}

// The script hands torchrun every hyperparameter of the recipe it was
// written from (not just DRIFT's), takes MODEL, DATA, OUTPUT, NUM_GPUS and
// PRECISION from the environment, and lets extra arguments override the
// recipe (argparse keeps the last value).
func TestFinetuneScriptRunsRecipe(t *testing.T) {
	r := DRIFTRecipe()
	r.Model, r.Epochs, r.LearnRate, r.BatchSize, r.TrainGroupSize, r.Temperature = "org/other-model", 3, 2.5e-5, 7, 9, 0.05
	r.Normalize, r.UnifiedFinetuning, r.Pooling, r.KDLossType = false, false, "mean", "kl_div"
	args := runScript(t, r, []string{"NUM_GPUS=3", "DATA=/data/pairs", "OUTPUT=/models/out"}, "--max_steps", "100", "--temperature", "0.07")
	if len(args) < 6 || args[0] != "--nproc_per_node" || args[1] != "3" || args[2] != "-m" || args[3] != "FlagEmbedding.finetune.embedder.encoder_only.m3" {
		t.Fatalf("torchrun called with %q", args)
	}
	got := flagValues(t, args[4:])
	f := strconv.FormatFloat
	want := map[string]string{
		"--model_name_or_path": "org/other-model", "--train_data": "/data/pairs/train.jsonl", "--output_dir": "/models/out",
		"--num_train_epochs": "3", "--learning_rate": f(r.LearnRate, 'g', -1, 64), "--per_device_train_batch_size": "7",
		"--train_group_size": "9", "--sentence_pooling_method": "mean", "--normalize_embeddings": "False",
		"--unified_finetuning": "False", "--kd_loss_type": "kl_div", "--fp16": "",
		"--max_steps": "100", "--temperature": "0.07", // the extra arguments win
		"--query_max_len": strconv.Itoa(r.QueryMaxLen), "--negatives_cross_device": "True",
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %q (present %v), want %q", k, g, ok, v)
		}
	}
	if lr, err := strconv.ParseFloat(got["--learning_rate"], 64); err != nil || lr != r.LearnRate {
		t.Errorf("learning rate %q does not parse back to %v", got["--learning_rate"], r.LearnRate)
	}
	// Defaults: MODEL from the recipe, DATA is the script's folder, PRECISION= turns off fp16 (CPU).
	args = runScript(t, DRIFTRecipe(), []string{"NUM_GPUS=1", "PRECISION="})
	got = flagValues(t, args[4:])
	if got["--model_name_or_path"] != "BAAI/bge-m3" || !strings.HasSuffix(got["--train_data"], "/train.jsonl") || got["--output_dir"] != "./driftkit-finetuned" {
		t.Errorf("defaults: %v", got)
	}
	if _, ok := got["--fp16"]; ok {
		t.Error("PRECISION= still passes --fp16")
	}
}
