package awsemu

import (
	"context"
	"net/http/httptest"
)

// TestServer is both services behind one local HTTP server, the
// Scheduler firing: for tests of code that calls SQS and Scheduler
// through the AWS SDK.
type TestServer struct {
	// URL is the base endpoint of both services.
	URL       string
	SQS       *SQS
	Scheduler *Scheduler

	close func()
}

// StartTestServer starts a TestServer in region and account, on the
// wall clock; Close stops it.
func StartTestServer(region, account string) *TestServer {
	return StartTestServerOn(nil, region, account)
}

// StartTestServerOn starts a TestServer whose services go by clock (nil:
// the wall clock), e.g. a ManualClock that a test advances past a
// visibility timeout or a schedule's time.
func StartTestServerOn(clock Clock, region, account string) *TestServer {
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	q := NewSQS(base, region, account)
	q.Clock = clock
	sc := NewScheduler(q, nil)
	srv.Config.Handler = Handler(q, sc)
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	end := sc.start(ctx)
	return &TestServer{URL: base, SQS: q, Scheduler: sc, close: func() { cancel(); end(); srv.Close(); q.Close() }}
}

// Close stops the server and the Scheduler.
func (s *TestServer) Close() { s.close() }
