package httpapi

import (
	"net/http"

	"github.com/botix/public-api/internal/apierr"
)

// statusOf is the one table from public error code to HTTP status.
var statusOf = map[apierr.Code]int{
	apierr.Unauthorized:                http.StatusUnauthorized,
	apierr.InsufficientScope:           http.StatusForbidden,
	apierr.NotFound:                    http.StatusNotFound,
	apierr.InvalidJSON:                 http.StatusBadRequest,
	apierr.UnsupportedMediaType:        http.StatusUnsupportedMediaType,
	apierr.ValidationFailed:            http.StatusUnprocessableEntity,
	apierr.InvalidParameter:            http.StatusBadRequest,
	apierr.PayloadTooLarge:             http.StatusRequestEntityTooLarge,
	apierr.IdempotencyKeyRequired:      http.StatusBadRequest,
	apierr.IdempotencyKeyInvalid:       http.StatusBadRequest,
	apierr.IdempotencyKeyReuseConflict: http.StatusConflict,
	apierr.IdempotencyKeyInProgress:    http.StatusConflict,
	apierr.ContactAlreadyExists:        http.StatusConflict,
	apierr.EndpointDisabled:            http.StatusConflict,
	apierr.InvalidCursor:               http.StatusBadRequest,
	apierr.OffsetTooLarge:              http.StatusBadRequest,
	apierr.LimitExceeded:               http.StatusConflict,
	apierr.RetryCooldown:               http.StatusTooManyRequests,
	apierr.ServiceUnavailable:          http.StatusServiceUnavailable,
	apierr.Internal:                    http.StatusInternalServerError,
}

// StatusOf returns the HTTP status of a public error code (500 if unknown).
func StatusOf(c apierr.Code) int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Codes returns every public error code with its HTTP status.
func Codes() map[apierr.Code]int {
	out := make(map[apierr.Code]int, len(statusOf))
	for c, s := range statusOf {
		out[c] = s
	}
	return out
}
