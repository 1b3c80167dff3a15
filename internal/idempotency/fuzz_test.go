package idempotency

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCanonicalize: canonicalization never panics, is idempotent, and
// keeps the JSON value.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `[]`, `"\u00e9"`, `{"a":{"b":{"c":1e10}}}`, `{"a":1,"a":2}`, ` 12.50 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := Canonicalize(body)
		if err != nil {
			return
		}
		if len(c) == 0 {
			return
		}
		again, err := Canonicalize(c)
		if err != nil || !bytes.Equal(again, c) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", body, c, again, err)
		}
		a, errA := decodeNumbers(body)
		b, errB := decodeNumbers(c)
		if errA != nil || errB != nil {
			t.Fatalf("canonical form of valid JSON is invalid: %q (%v, %v)", c, errA, errB)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("value changed: %s vs %s", ja, jb)
		}
	})
}

// FuzzParseKey: any header value is either rejected or normalised to a
// key that parses to itself.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21", "01JDQ7X3ZV8N5W2K4R6T9Y1B3C", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		k, err := ParseKey(raw)
		if err != nil {
			return
		}
		again, err := ParseKey(k)
		if err != nil || again != k {
			t.Fatalf("%q -> %q -> %q, %v", raw, k, again, err)
		}
	})
}

func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
