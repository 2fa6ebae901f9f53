package app

// The dense backends besides the in-process one: each registers its kind
// from init. Adding a backend is a package and a line here.
import _ "github.com/driftkit/driftkit/index/weaviate"
