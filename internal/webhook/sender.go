package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/botix/public-api/internal/webhook/addrguard"
)

// MaxResponseBody is how much of a receiver's answer an attempt keeps.
const MaxResponseBody = 4 << 10

// Sender POSTs webhooks: connect and read timeouts, no redirects, no
// proxies, and the webhook guard at dial time (after DNS resolution).
type Sender struct {
	client *http.Client
	read   time.Duration
}

var _ Poster = (*Sender)(nil)

// NewSender returns a sender with the given guard and timeouts.
func NewSender(guard addrguard.Guard, connect, read time.Duration) *Sender {
	dialer := &net.Dialer{Timeout: connect, Control: guard.Control}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   connect,
		ResponseHeaderTimeout: read,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Sender{read: read, client: &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Post sends one webhook (see Poster).
func (s *Sender) Post(ctx context.Context, url string, body []byte, headers map[string]string) Response {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.read+30*time.Second) // a body that trickles in
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		return Response{Class: ClassConnection, Err: err, Duration: time.Since(start)}
	}
	req.Header.Set("Content-Type", ContentTypeHeader)
	req.Header.Set("User-Agent", UserAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return Response{Class: classify(err), Err: err, Duration: time.Since(start)}
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // keep the connection reusable
	return Response{Status: resp.StatusCode, Body: string(head), RetryAfter: resp.Header.Get("Retry-After"), Duration: time.Since(start)}
}

// classify names the failure of a request that got no response.
func classify(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case errors.Is(err, addrguard.ErrForbiddenAddress):
		return ClassForbidden
	case errors.As(err, &dnsErr):
		return ClassDNS
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &recErr), strings.Contains(err.Error(), "tls:"):
		return ClassTLS
	case errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout():
		return ClassConnectTimeout
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return ClassReadTimeout
	}
	return ClassConnection
}
