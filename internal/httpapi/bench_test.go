package httpapi

import (
	"testing"

	"github.com/botix/public-api/internal/apierr"
)

// BenchmarkEnvelope measures rendering an error in the envelope.
func BenchmarkEnvelope(b *testing.B) {
	err := apierr.New(apierr.IdempotencyKeyInProgress, "a request with this Idempotency-Key is still being processed")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = ErrorResponse(err, "req_01M8K7V8RHFS7KHFBQAFVH8BPH")
	}
}
