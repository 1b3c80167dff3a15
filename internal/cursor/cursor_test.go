package cursor

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/botix/public-api/internal/apierr"
)

const (
	secretA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	secretB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func ring(t *testing.T, s string) *Keyring {
	t.Helper()
	kr, err := ParseKeyring(s)
	if err != nil {
		t.Fatal(err)
	}
	return kr
}

var (
	binding = Binding{Project: "prj_1", Endpoint: "GET /public/v1/contacts", Filters: Normalize(map[string]string{"tag": "vip"})}
	pos     = Position{"pk": "P#prj_1#CT", "sk": "01JDQ7X3ZV8N5W2K4R6T9Y1B3C"}
)

func TestRoundTrip(t *testing.T) {
	kr := ring(t, "k1:"+secretA)
	tok, err := kr.Encode(binding, pos)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(tok, "+/=") {
		t.Fatalf("not base64url without padding: %s", tok)
	}
	got, err := kr.Decode(binding, tok)
	if err != nil || got["sk"] != pos["sk"] || got["pk"] != pos["pk"] {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestTamperMatrix(t *testing.T) {
	kr := ring(t, "k1:"+secretA)
	tok, _ := kr.Encode(binding, pos)
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	other := ring(t, "k9:"+secretA)
	foreign, _ := other.Encode(binding, pos)

	cases := map[string]struct {
		b   Binding
		tok string
	}{
		"not base64":        {binding, "!!!not-base64!!!"},
		"empty":             {binding, ""},
		"truncated":         {binding, tok[:len(tok)/2]},
		"unknown key id":    {binding, foreign},
		"another project":   {Binding{Project: "prj_2", Endpoint: binding.Endpoint, Filters: binding.Filters}, tok},
		"another endpoint":  {Binding{Project: "prj_1", Endpoint: "GET /public/v1/messages", Filters: binding.Filters}, tok},
		"other filters":     {Binding{Project: "prj_1", Endpoint: binding.Endpoint, Filters: Normalize(map[string]string{"tag": "lead"})}, tok},
		"filters dropped":   {Binding{Project: "prj_1", Endpoint: binding.Endpoint}, tok},
		"standard base64":   {binding, base64.StdEncoding.EncodeToString(raw)},
		"trailing garbage":  {binding, tok + "AA"},
		"version changed":   {binding, base64.RawURLEncoding.EncodeToString(append([]byte{2}, raw[1:]...))},
		"payload not a key": {binding, resign(t, kr, []byte(`[]`))},
	}
	for name, c := range cases {
		t.Run(name+" -> INVALID_CURSOR", func(t *testing.T) {
			if _, err := kr.Decode(c.b, c.tok); !apierr.Is(err, apierr.InvalidCursor) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	t.Run("any flipped byte -> INVALID_CURSOR", func(t *testing.T) {
		for i := range raw {
			for _, bit := range []byte{0x01, 0x80} {
				b := append([]byte(nil), raw...)
				b[i] ^= bit
				if _, err := kr.Decode(binding, base64.RawURLEncoding.EncodeToString(b)); !apierr.Is(err, apierr.InvalidCursor) {
					t.Fatalf("flipping bit %#x of byte %d was accepted", bit, i)
				}
			}
		}
	})
}

// resign builds a correctly signed cursor around an arbitrary payload.
func resign(t *testing.T, kr *Keyring, payload []byte) string {
	t.Helper()
	k := kr.keys[0]
	b := []byte{version, byte(len(k.ID))}
	b = append(b, k.ID...)
	b = append(b, mac(k.Secret, k.ID, payload, binding)...)
	b = append(b, payload...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestKeyRotation(t *testing.T) {
	old := ring(t, "k1:"+secretA)
	tok, _ := old.Encode(binding, pos)
	rotated := ring(t, "k2:"+secretB+",k1:"+secretA)
	t.Run("an old key id still verifies", func(t *testing.T) {
		if _, err := rotated.Decode(binding, tok); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the new key id signs", func(t *testing.T) {
		fresh, _ := rotated.Encode(binding, pos)
		if _, err := old.Decode(binding, fresh); err == nil {
			t.Fatal("a cursor signed after rotation verified with the old ring only")
		}
		if _, err := ring(t, "k2:"+secretB).Decode(binding, fresh); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a removed key id no longer verifies", func(t *testing.T) {
		if _, err := ring(t, "k2:"+secretB).Decode(binding, tok); !apierr.Is(err, apierr.InvalidCursor) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestParseKeyring(t *testing.T) {
	for name, s := range map[string]string{
		"empty":          "",
		"no secret":      "k1",
		"short secret":   "k1:short",
		"bad kid":        "k 1:" + secretA,
		"duplicate kids": "k1:" + secretA + ",k1:" + secretB,
	} {
		t.Run(name+" is refused", func(t *testing.T) {
			_, err := ParseKeyring(s)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), secretA) || strings.Contains(err.Error(), secretB) {
				t.Fatalf("error leaks a secret: %v", err)
			}
		})
	}
	if kr := ring(t, "k1:"+secretA+",-"); len(kr.keys) != 1 {
		t.Fatalf("'-' (no previous key) must be skipped: %+v", kr.keys)
	}
	if kr := ring(t, " k2:"+secretB+" ,, k1:"+secretA+","); len(kr.keys) != 2 || kr.keys[0].ID != "k2" {
		t.Fatalf("keys %+v", kr.keys)
	}
}
