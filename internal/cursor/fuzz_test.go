package cursor

import (
	"testing"

	"github.com/botix/public-api/internal/apierr"
)

// FuzzDecode: any client input decodes to a position or INVALID_CURSOR,
// never a panic or another error.
func FuzzDecode(f *testing.F) {
	kr, _ := ParseKeyring("k1:" + secretA)
	valid, _ := kr.Encode(binding, pos)
	for _, s := range []string{valid, valid[:10], "", "AQ", "AQJrMQ", "%%%", valid + valid} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		p, err := kr.Decode(binding, tok)
		if err != nil {
			if !apierr.Is(err, apierr.InvalidCursor) {
				t.Fatalf("error %v is not INVALID_CURSOR", err)
			}
			return
		}
		if len(p) == 0 {
			t.Fatal("accepted an empty position")
		}
	})
}
