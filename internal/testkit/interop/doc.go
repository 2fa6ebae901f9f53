// Package interop proves that independent Parquet readers read the tables
// driftkit writes. It holds only tests, kept apart from package workspace so that
// workspace's own tests do not link DuckDB.
package interop
