package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(newCommand("version", "print the tool version", help{"", "Prints the driftkit version recorded in manifests and Parquet footers."}, runVersion))
}

// versionOptions: `driftkit version` has no flags.
type versionOptions struct{}

func (o *versionOptions) AddFlags(fs *flag.FlagSet)    {}
func (o *versionOptions) Validate(args []string) error { return nil }

func runVersion(ctx context.Context, o *versionOptions, env *Env, args []string) error {
	fmt.Fprintf(env.Stdout, "driftkit %s (%s, %s/%s)\n", workspace.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
