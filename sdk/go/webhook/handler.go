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
// answers tell BOTIX what to do: 200 for a processed or duplicate event;
// 401 for a bad signature (BOTIX does not retry it: the delivery goes to
// its dead-letter queue, where the endpoint's owner sees it); 500 when
// process fails (BOTIX retries; the event id is forgotten so the retry is
// processed).
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
	first, err := h.Dedup.First(r.Context(), ev.ID)
	if err != nil {
		log.ErrorContext(r.Context(), "deduplicator unavailable", "error", err.Error(), "event_id", ev.ID)
		http.Error(w, "try again", http.StatusServiceUnavailable)
		return
	}
	if !first {
		w.WriteHeader(http.StatusOK) // already processed: acknowledge, do nothing
		return
	}
	if err := h.Process(r.Context(), ev); err != nil {
		if ferr := h.Dedup.Forget(context.WithoutCancel(r.Context()), ev.ID); ferr != nil {
			err = errors.Join(err, ferr)
		}
		log.ErrorContext(r.Context(), "webhook processing failed; BOTIX will retry", "error", err.Error(), "event_id", ev.ID)
		http.Error(w, "processing failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}
