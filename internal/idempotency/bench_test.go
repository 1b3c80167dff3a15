package idempotency

import "testing"

var contactBody = []byte(`{"phone":"+79990000000","name":"Ivan Petrov","email":"ivan@example.com","tags":["vip","lead","spb"]}`)

// BenchmarkFingerprint measures the per-request work of key parsing,
// canonicalisation and hashing of a typical contact body.
func BenchmarkFingerprint(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseKey("3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21"); err != nil {
			b.Fatal(err)
		}
		c, err := Canonicalize(contactBody)
		if err != nil {
			b.Fatal(err)
		}
		_ = Fingerprint("POST", "POST /public/v1/contacts", nil, c)
	}
}
