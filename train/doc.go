// Package train trains the projection head (package train/head) with Gorgonia
// on frozen embeddings of queries and documents: InfoNCE with a temperature,
// in-batch negatives plus mined hard negatives, Adam, and early stopping on
// the validation split's recall@k. It also holds the FlagEmbedding fine-tune
// recipe (see FinetuneScript).
package train
