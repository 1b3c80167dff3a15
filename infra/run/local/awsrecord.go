package local

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/botix/public-api/infra/internal/exchange"
)

// AWSExchange is one request to the local AWS and its answer, read whole:
// what Config.OnAWSExchange gets (the tests check it against AWS's API
// models). The type lives in package exchange, which package awsmodel
// checks too.
type AWSExchange = exchange.AWS

// recordAWS serves req with next and hands the exchange to
// Config.OnAWSExchange. An exchange whose client went away before the
// answer (the runtime's pollers cancel theirs when it stops) is not
// handed on: nobody read that answer, which is a proxy's 502.
func (r *Runtime) recordAWS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, req)
		if req.Context().Err() != nil {
			return
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
			rec.header = w.Header().Clone()
		}
		u := *req.URL
		r.cfg.OnAWSExchange(AWSExchange{
			Method: req.Method, URL: &u, RequestHeader: req.Header.Clone(), RequestBody: body,
			Status: rec.status, ResponseHeader: rec.header, ResponseBody: rec.body.Bytes(),
		})
	})
}

// recorder keeps a copy of what a handler writes.
type recorder struct {
	http.ResponseWriter
	status int
	header http.Header
	body   bytes.Buffer
}

func (c *recorder) WriteHeader(status int) {
	if c.status == 0 {
		c.status, c.header = status, c.ResponseWriter.Header().Clone()
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *recorder) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (the reverse proxy's flushes) reach
// the server's writer.
func (c *recorder) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// dynamoDBEndpoint is where the functions and the runtime's own clients
// reach DynamoDB: DynamoDB Local itself, or, when the exchanges are
// recorded, a proxy in front of it that records them.
func (r *Runtime) dynamoDBEndpoint() (string, error) {
	if r.cfg.OnAWSExchange == nil {
		return r.cfg.DynamoDBEndpoint, nil
	}
	target, err := url.Parse(r.cfg.DynamoDBEndpoint)
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	// Every function's and poller's DynamoDB call passes here: keep their
	// connections to the engine open (net/http keeps 2 idle per host).
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	proxy.Transport = transport
	// A client gone (a poller stopped) is no error worth a log line.
	proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	r.ddbRecorder = &http.Server{Handler: r.recordAWS(proxy), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := r.ddbRecorder.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.cfg.Log.Error("local: DynamoDB recording proxy", "error", err.Error())
		}
	}()
	return "http://" + l.Addr().String(), nil
}
