package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/driftkit/driftkit/workspace"
)

func init() {
	register(&command{name: "version", short: "print the tool version", run: func(ctx context.Context, env *Env, args []string) error {
		fs := env.newFlags("version", "", "Prints the driftkit version recorded in manifests and Parquet footers.")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "driftkit %s (%s, %s/%s)\n", workspace.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	}})
}
