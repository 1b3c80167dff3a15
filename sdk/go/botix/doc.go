// Package botix is the Go client of the BOTIX public API v1.1.
//
// It makes the API's three guarantees automatic for the caller:
//
//   - Idempotency. Every mutating call (Create, Send, Import, Run, Update,
//     Delete, RotateSecret, Test, Recover, Retry, Redirect) is one logical
//     operation with one Idempotency-Key, a fresh UUIDv4 unless
//     WithIdempotencyKey gives one, sent unchanged on every retry of that
//     call. When an answer is lost on the way back (a dropped connection, a
//     timeout after the server acted), the retry gets the stored answer
//     (Response.Replayed) instead of doing the work twice.
//   - Safe retries. Connection errors and timeouts, 429, 5xx and 409
//     IDEMPOTENCY_KEY_IN_PROGRESS are retried — GETs included — with
//     exponential backoff and full jitter, honouring Retry-After (up to RetryPolicy.MaxRetryAfter), within a
//     per-client retry quota that stops retry storms during an outage
//     (ErrRetryQuotaExhausted). Other 4xx are returned at once. The caller's
//     context bounds the whole call, waits included.
//   - Cursor pagination. Every list has List (one Page, with NextCursor)
//     and All, a Go iterator over every item that follows the cursors, can
//     start from a saved cursor, and stops fetching when the loop ends.
//     Walk gives a Walker, whose Position after each item (a page cursor
//     and an item id, with a text form) resumes a walk at that item, after
//     an error or in another process, with nothing lost or repeated.
//
// Every error of a call is an *OperationError: the route, the
// Idempotency-Key every attempt sent (empty for a GET), the number of
// attempts, and the cause, which errors.Is and errors.As still reach. The
// API's answers are *Error values carrying the envelope's Code (the Code
// constants), Message, RequestID, Field and Details; a call whose attempts
// are spent wraps ErrGaveUp, one the retry quota stopped
// ErrRetryQuotaExhausted, and one the caller's context stopped
// context.DeadlineExceeded or context.Canceled — also when the deadline
// comes before the next attempt would start, or during a wait between
// attempts. An attempt's own timeout (WithAttemptTimeout) is
// ErrAttemptTimeout, never context.DeadlineExceeded.
//
//	c, err := client.Contacts.Create(ctx, botix.ContactCreate{Phone: "+79990000000", Name: "Ivan"})
//	var apiErr *botix.Error
//	var opErr *botix.OperationError
//	switch {
//	case errors.As(err, &apiErr) && apiErr.Code == botix.CodeContactAlreadyExists:
//		// the phone is taken
//	case errors.As(err, &opErr) && opErr.Reissuable():
//		// the contact may exist (an answer lost): finish the same operation
//		c, err = client.Contacts.Create(ctx, botix.ContactCreate{Phone: "+79990000000", Name: "Ivan"}, opErr.Reissue())
//	}
//
// Re-issuing (the same method and arguments with opErr.Reissue(), that is
// WithIdempotencyKey(opErr.IdempotencyKey)) is always safe: the API replays
// the stored result or runs the operation once. It is pointless after a 4xx
// other than 409 IDEMPOTENCY_KEY_IN_PROGRESS and 429 (Reissuable reports
// false). A call without the key is a new operation.
//
// The net/http Transport never re-sends a request by itself: every HTTP
// request is an attempt the policy counts, waits for, pays quota for and
// logs (see WithHTTPClient and the Go SDK section of docs/integrators.md).
//
// The package depends on the standard library and github.com/google/uuid
// only.
package botix
