package idempotency

import (
	"bytes"
	"testing"

	"github.com/botix/public-api/internal/apierr"
)

func TestParseKey(t *testing.T) {
	cases := []struct {
		name, key, want string
		code            apierr.Code
	}{
		{"missing -> IDEMPOTENCY_KEY_REQUIRED", "", "", apierr.IdempotencyKeyRequired},
		{"uuid v4", "3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21", "3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21", ""},
		{"uuid v4 upper case is the same key", "3F0C8A4E-2D3B-4C8E-9F1A-7B6D5E4C3A21", "3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21", ""},
		{"ulid", "01JDQ7X3ZV8N5W2K4R6T9Y1B3C", "01JDQ7X3ZV8N5W2K4R6T9Y1B3C", ""},
		{"ulid lower case is the same key", "01jdq7x3zv8n5w2k4r6t9y1b3c", "01JDQ7X3ZV8N5W2K4R6T9Y1B3C", ""},
		{"uuid v1 -> invalid", "3f0c8a4e-2d3b-1c8e-9f1a-7b6d5e4c3a21", "", apierr.IdempotencyKeyInvalid},
		{"uuid without hyphens -> invalid", "3f0c8a4e2d3b4c8e9f1a7b6d5e4c3a21", "", apierr.IdempotencyKeyInvalid},
		{"uuid wrong variant -> invalid", "3f0c8a4e-2d3b-4c8e-cf1a-7b6d5e4c3a21", "", apierr.IdempotencyKeyInvalid},
		{"timestamp -> invalid", "1795939200", "", apierr.IdempotencyKeyInvalid},
		{"ulid with I -> invalid", "01JDQ7X3ZV8N5W2K4R6T9Y1B3I", "", apierr.IdempotencyKeyInvalid},
		{"ulid overflow -> invalid", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "", apierr.IdempotencyKeyInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseKey(c.key)
			if c.code != "" {
				if !apierr.Is(err, c.code) {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestCanonicalize(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"key order does not matter", `{"b":1,"a":{"y":2,"x":[3,{"d":4,"c":5}]}}`, `{"a":{"x":[3,{"c":5,"d":4}],"y":2},"b":1}`},
		{"whitespace does not matter", "{ \"a\" :\n [1, 2] }", `{"a":[1,2]}`},
		{"escapes are normalised", `{"s":"\u0041\u003c"}`, `{"s":"A<"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, err := Canonicalize([]byte(c.a))
			if err != nil {
				t.Fatal(err)
			}
			y, err := Canonicalize([]byte(c.b))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x, y) {
				t.Fatalf("%s != %s", x, y)
			}
		})
	}
	t.Run("numbers keep their text", func(t *testing.T) {
		x, _ := Canonicalize([]byte(`{"price":10.50}`))
		y, _ := Canonicalize([]byte(`{"price":10.5}`))
		if bytes.Equal(x, y) || string(x) != `{"price":10.50}` {
			t.Fatalf("%s vs %s", x, y)
		}
	})
	t.Run("invalid UTF-8 is refused, not replaced (two bodies would share a fingerprint)", func(t *testing.T) {
		if _, err := Canonicalize([]byte("{\"a\":\"\xff\"}")); !apierr.Is(err, apierr.InvalidJSON) {
			t.Fatalf("err = %v", err)
		}
	})
	for name, bad := range map[string]string{"truncated": `{"a":`, "two values": `{}{}`, "garbage": `nope`} {
		t.Run(name+" -> INVALID_JSON", func(t *testing.T) {
			if _, err := Canonicalize([]byte(bad)); !apierr.Is(err, apierr.InvalidJSON) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	body, _ := Canonicalize([]byte(`{"a":1}`))
	base := Fingerprint("POST", "POST /public/v1/contacts", nil, body)
	other, _ := Canonicalize([]byte(`{"a":2}`))
	for name, fp := range map[string]string{
		"other body":       Fingerprint("POST", "POST /public/v1/contacts", nil, other),
		"other endpoint":   Fingerprint("POST", "POST /public/v1/messages", nil, body),
		"other path param": Fingerprint("POST", "POST /public/v1/contacts", map[string]string{"id": "x"}, body),
	} {
		t.Run(name+" changes the fingerprint", func(t *testing.T) {
			if fp == base {
				t.Fatal("same fingerprint")
			}
		})
	}
}

func TestDecide(t *testing.T) {
	done := Record{Status: Completed, Fingerprint: "f", Response: &Response{Status: 201}}
	cases := []struct {
		name string
		rec  Record
		fp   string
		want Decision
	}{
		{"completed, same request -> replay", done, "f", Replay},
		{"completed, other request -> conflict", done, "g", Conflict},
		{"running, same request -> busy", Record{Status: InProgress, Fingerprint: "f"}, "f", Busy},
		{"running, other request -> conflict", Record{Status: InProgress, Fingerprint: "f"}, "g", Conflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Decide(c.rec, c.fp); got != c.want {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	if e, _ := apierr.As(Busy.Err()); e.RetryAfter != 5 || e.Code != apierr.IdempotencyKeyInProgress {
		t.Fatalf("busy error = %+v", e)
	}
}

func TestFinal(t *testing.T) {
	for status, want := range map[int]bool{200: true, 201: true, 202: true, 404: true, 409: true, 422: true, 429: false, 500: false, 503: false} {
		if Final(status) != want {
			t.Errorf("Final(%d) = %v", status, !want)
		}
	}
}
