package app

import (
	"fmt"
	"os"

	"github.com/driftkit/driftkit/index"
)

// The dense backends this driftkit offers: the in-process one (index's
// own) and each package below, which registers its kind from init. Adding a
// backend is a package and a line here.

// DenseEnv is the environment a dense backend reads its secrets and
// overrides from (WEAVIATE_API_KEY, …), with warn receiving what does not
// stop the work (nil drops it).
func DenseEnv(warn func(string)) index.DenseEnv {
	return index.DenseEnv{Getenv: os.Getenv, Warn: warn}
}

// DenseSpec is the backend a build stores its vectors in: a registered kind
// (--backend) and its parameters, checked now (a misspelt or malformed one
// wraps ErrConfig) so that a build fails before any work.
func DenseSpec(kind string, params map[string]string) (*index.DenseSpec, error) {
	if _, err := index.ParseDense(kind, params, index.DenseEnv{}); err != nil {
		return nil, fmt.Errorf("%w: --backend %s: %v", ErrConfig, kind, err)
	}
	return &index.DenseSpec{Kind: kind, Params: params}, nil
}
