// Package train trains the projection head (package head) with Gorgonia
// on frozen embeddings of queries and documents: InfoNCE with a temperature,
// in-batch negatives plus mined hard negatives, Adam, and early stopping on
// the validation split's recall@k. The FlagEmbedding fine-tune recipe lives in
// package export.
package train
