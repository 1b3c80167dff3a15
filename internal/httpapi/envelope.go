package httpapi

import (
	"net/http"
	"strconv"

	"github.com/botix/public-api/internal/apierr"
)

type envelope struct {
	Error envelopeError `json:"error"`
}

type envelopeError struct {
	Code      apierr.Code       `json:"code"`
	Message   string            `json:"message"`
	RequestID string            `json:"request_id"`
	Field     string            `json:"field,omitempty"`
	Details   map[string]string `json:"details,omitempty"`
}

// ErrorResponse renders err in the error envelope. Errors that are not
// *apierr.Error become 500 INTERNAL with a generic message: internals never
// reach the body.
func ErrorResponse(err error, requestID string) *Response {
	e, ok := apierr.As(err)
	if !ok {
		e = &apierr.Error{Code: apierr.Internal, Message: "internal error; quote the request_id when contacting support"}
	}
	env := envelope{Error: envelopeError{Code: e.Code, Message: e.Message, RequestID: requestID}}
	if len(e.Fields) > 0 {
		env.Error.Details = e.Fields
		env.Error.Field = firstKey(e.Fields)
	}
	body, _ := Marshal(env)
	h := http.Header{"Content-Type": []string{"application/json"}}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	return &Response{Status: StatusOf(e.Code), Header: h, Body: body}
}

func firstKey(m map[string]string) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}
