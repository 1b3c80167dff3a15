package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/internal/apierr"
)

func TestATakenPortIsNamedWithTheVariableThatMovesIt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = portFree(l.Addr().String(), "AWS_PORT")
	if err == nil {
		t.Fatalf("%s is taken, and portFree says nothing", l.Addr())
	}
	want := "cannot listen on " + l.Addr().String() + " (address already in use): stop what listens there, or choose another port with AWS_PORT (AWS_PORT=<port> make run)"
	if err.Error() != want || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q, want %q", err, want)
	}
	free := l.Addr().String()
	l.Close()
	if err := portFree(free, "PORT"); err != nil {
		t.Errorf("a free port: %v", err)
	}
}

func TestSeedRetriesWhatCanPassOnASecondTry(t *testing.T) {
	transient := errors.New("internal error; see the function's logs")
	malformed := apierr.Problems{"api_key": "must be 'bx_' followed by 16-128 letters"}.Err()
	for _, tc := range []struct {
		name       string
		answers    []error // one per try; nil: the project is created
		wantErr    error
		wantTries  int
		wantSleeps []time.Duration
	}{
		{"created at once", []error{nil}, nil, 1, nil},
		{"two transient failures, then created: backing off 1 s, 2 s", []error{transient, transient, nil}, nil, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"a refusal of the request is not retried", []error{malformed, nil}, malformed, 1, nil},
		{"transient every time: given up after seedTries", []error{transient, transient, transient, transient, transient, transient, nil}, transient, seedTries,
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			var slept []time.Duration
			var said strings.Builder
			out, err := seed(context.Background(), func(context.Context) (json.RawMessage, error) {
				e := tc.answers[tries]
				tries++
				if e != nil {
					return nil, e
				}
				return json.RawMessage(`{"project":{"id":"prj_1"}}`), nil
			}, &said, func(d time.Duration) { slept = append(slept, d) })
			if !errors.Is(err, tc.wantErr) || tries != tc.wantTries || !slices.Equal(slept, tc.wantSleeps) {
				t.Fatalf("err %v after %d tries, slept %v; want %v after %d, %v", err, tries, slept, tc.wantErr, tc.wantTries, tc.wantSleeps)
			}
			if (err == nil) != (len(out) > 0) {
				t.Fatalf("out %s with err %v", out, err)
			}
			if n := strings.Count(said.String(), "trying again"); n != len(tc.wantSleeps) {
				t.Fatalf("said %q: want one line per retry", said.String())
			}
		})
	}
}

func TestTheReadmeSaysHowOftenTheSeedIsRetried(t *testing.T) {
	readme := strings.Join(strings.Fields(docs.Read(t, "README.md")), " ")
	if want := fmt.Sprintf("retries a transient failure, saying so, up to %d times", seedTries-1); !strings.Contains(readme, want) {
		t.Fatalf("the README does not say %q", want)
	}
}
