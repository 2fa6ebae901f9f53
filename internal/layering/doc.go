// Package layering holds the tests that keep driftkit's code in the shape
// README's "Code layout" describes: packages and top-level folders import
// only from layers below their own (TestImportsGoDown, TestFoldersGoDown),
// product code never imports test support, app is the one place that opens
// indexes, encoders, chat clients and Lean backends (TestOneOpeningPlace),
// every package says what it is (TestPackageDocs) and no product function
// is longer than one can read at once (TestFunctionLength). Run them with
// `go test ./internal/layering`; `go test ./internal/layering -run
// TestLayers -v` prints the layers bottom to top with their packages.
package layering
