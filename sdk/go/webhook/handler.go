package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// MaxBody bounds the body the handler reads (BOTIX sends at most 64 KB).
const MaxBody = 1 << 20

// Handler verifies, de-duplicates and passes each event to process. Its
// answers tell BOTIX what to do:
//
//   - 200 for a processed event, and for a copy of an event whose
//     processing completed (not processed again);
//   - 503 without Retry-After for a copy that arrives while another copy
//     of the event is being processed: BOTIX retries that delivery on its
//     schedule (5xx), so if that processing fails, the event is still
//     delivered. No Retry-After: BOTIX pauses the whole endpoint on a 429,
//     or a 503 with Retry-After, and one event's contention is not the
//     receiver being overloaded. Not 409: BOTIX ends a delivery answered
//     with a 4xx other than 429 as dead at once;
//   - 500 when process fails (BOTIX retries; the event id is forgotten so
//     the retry is processed);
//   - 401 for a bad signature (BOTIX does not retry it: the delivery goes
//     to its dead-letter queue, where the endpoint's owner sees it);
//   - 503 when the deduplicator cannot be asked.
//
// The event is processed exactly once as long as each processing ends (in
// success, an error or a panic) within the deduplicator's lease.
type Handler struct {
	Verifier Verifier
	Dedup    Deduplicator
	Process  func(ctx context.Context, ev Event) error
	// Log receives one line per failure; nil means slog.Default().
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewHandler returns a Handler with the endpoint's secrets.
func NewHandler(secrets []string, dedup Deduplicator, process func(context.Context, Event) error) *Handler {
	return &Handler{Verifier: Verifier{Secrets: secrets}, Dedup: dedup, Process: process}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	log := h.Log
	if log == nil {
		log = slog.Default()
	}
	now := time.Now()
	if h.Now != nil {
		now = h.Now()
	}
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil || len(body) > MaxBody {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	if err := h.Verifier.Verify(r.Header, body, now); err != nil {
		log.WarnContext(r.Context(), "webhook rejected", "error", err.Error(), "webhook_id", r.Header.Get("Webhook-Id"))
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" {
		http.Error(w, "not a BOTIX event", http.StatusBadRequest)
		return
	}
	state, err := h.Dedup.Begin(r.Context(), ev.ID)
	if err != nil {
		log.ErrorContext(r.Context(), "deduplicator unavailable", "error", err.Error(), "event_id", ev.ID)
		http.Error(w, "try again", http.StatusServiceUnavailable)
		return
	}
	switch state {
	case StateUnseen:
		h.process(w, r, log, ev)
	case StateDone:
		w.WriteHeader(http.StatusOK) // already processed: acknowledge, do nothing
	case StateProcessing:
		// Not 200: if the copy being processed fails, this one must come back.
		// No Retry-After: it would pause every delivery of the endpoint.
		http.Error(w, "event is being processed; retry later", http.StatusServiceUnavailable)
	default:
		log.ErrorContext(r.Context(), "deduplicator returned an invalid state", "state", int(state), "event_id", ev.ID)
		http.Error(w, "try again", http.StatusServiceUnavailable)
	}
}

// process runs Process on a claimed event and settles the claim: Complete
// after success, Forget after an error or a panic (which net/http turns
// into a dropped connection, which BOTIX retries), so that no outcome
// leaves the event blocked until its lease runs out.
func (h *Handler) process(w http.ResponseWriter, r *http.Request, log *slog.Logger, ev Event) {
	settle := context.WithoutCancel(r.Context())
	settled := false
	defer func() {
		if !settled {
			if ferr := h.Dedup.Forget(settle, ev.ID); ferr != nil {
				log.ErrorContext(r.Context(), "forgetting a panicked event failed; a retry waits for the lease", "error", ferr.Error(), "event_id", ev.ID)
			}
		}
	}()
	err := h.Process(r.Context(), ev)
	settled = true
	if err != nil {
		if ferr := h.Dedup.Forget(settle, ev.ID); ferr != nil {
			err = errors.Join(err, ferr)
		}
		log.ErrorContext(r.Context(), "webhook processing failed; BOTIX will retry", "error", err.Error(), "event_id", ev.ID)
		http.Error(w, "processing failed", http.StatusInternalServerError)
		return
	}
	if cerr := h.Dedup.Complete(settle, ev.ID); cerr != nil {
		// The event was processed: acknowledge it. A 500 would bring a
		// retry that, after the lease, processes the event a second time.
		log.ErrorContext(r.Context(), "recording a processed event failed; a redelivery after the lease would process it again", "error", cerr.Error(), "event_id", ev.ID)
	}
	w.WriteHeader(http.StatusOK)
}
