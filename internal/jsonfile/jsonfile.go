// Package jsonfile reads the JSON files a user writes to extend driftkit's
// built-in tables (extract's --naming, informalize's --vocabulary): strictly
// — one JSON value, no field the target does not have, so that a misspelt
// table is an error, not silently ignored — and with errors that name the
// file and the line. It has no state.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// ReadStrict decodes the JSON file at path into v. A malformed file, a
// field v does not have, or a second value is an error wrapping kind:
// "path:line: kind: reason (want want)", or "path: kind: more than one
// JSON value". An unreadable file is os.ReadFile's error.
func ReadStrict(path string, v any, kind error, want string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s:%d: %w: %v (want %s)", path, errorLine(b, err), kind, err, want)
	}
	if dec.More() {
		return fmt.Errorf("%s: %w: more than one JSON value", path, kind)
	}
	return nil
}

// errorLine is the line of b that err (from decoding b) is about: where a
// syntax or type error stands, the line after the last for a truncated
// file, else 1.
func errorLine(b []byte, err error) int {
	line := 1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line += bytes.Count(b[:min(int(se.Offset), len(b))], []byte{'\n'})
	case errors.As(err, &te):
		line += bytes.Count(b[:min(int(te.Offset), len(b))], []byte{'\n'})
	case errors.Is(err, io.ErrUnexpectedEOF):
		line += bytes.Count(bytes.TrimRight(b, "\n"), []byte{'\n'}) + 1 // after the last line
	default:
		// An unknown field has no offset in encoding/json's error: the
		// line is that of the key, when the file has it as a key once
		// (twice, the message alone must do: which one is meant is not
		// known here).
		if name, ok := unknownField(err); ok {
			key := regexp.MustCompile(regexp.QuoteMeta(strconv.Quote(name)) + `\s*:`)
			if at := key.FindAllIndex(b, 2); len(at) == 1 {
				line += bytes.Count(b[:at[0][0]], []byte{'\n'})
			}
		}
	}
	return line
}

// unknownField is the field name of encoding/json's "json: unknown field
// \"name\"" (Decoder.DisallowUnknownFields).
func unknownField(err error) (string, bool) {
	q, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return "", false
	}
	name, uerr := strconv.Unquote(q)
	return name, uerr == nil
}
