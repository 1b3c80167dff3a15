package awsenv

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// closable is a request body that fails reads once closed, as the SDK's
// does.
type closable struct {
	r      io.Reader
	closed bool
}

func (c *closable) Read(p []byte) (int, error) {
	if c.closed {
		return 0, errors.New("read on closed body")
	}
	return c.r.Read(p)
}

func (c *closable) Close() error { c.closed = true; return nil }

// lateWriter is a client that answers before it has written the request's
// body, and writes it when asked: net/http's write loop can still be
// reading a body after the response is in.
type lateWriter struct{ write func() error }

func (l *lateWriter) Do(r *http.Request) (*http.Response, error) {
	l.write = func() error { _, err := io.ReadAll(r.Body); return err }
	return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
}

// The client sends a body of its own: the SDK closing the request's
// body once the response is in does not fail a write still under way.
func TestTheTransportOwnsTheBodyItSends(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wrap    bool
		wantErr bool
	}{
		{"the SDK's body, closed under the write loop", false, true},
		{"a body of its own", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := &lateWriter{}
			var c aws.HTTPClient = next
			if tc.wrap {
				c = OwnBodies(next)
			}
			body := &closable{r: strings.NewReader(`{"QueueUrl":"q"}`)}
			req, _ := http.NewRequest(http.MethodPost, "http://localhost/", body)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			body.Close() // what the SDK does once the response is in
			if err := next.write(); (err != nil) != tc.wantErr {
				t.Errorf("the late write's error: %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
}
