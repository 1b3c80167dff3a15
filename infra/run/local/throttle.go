package local

import (
	"strconv"
	"sync"
	"time"
)

// throttle plays the HTTP API stage's throttling: a token bucket that
// refills at rate tokens a second up to burst. Past it, API Gateway
// answers 429 without calling a function.
type throttle struct {
	mu          sync.Mutex
	rate, burst float64
	tokens      float64
	last        time.Time
}

// allow takes a token, reporting false when none is left.
func (t *throttle) allow(now time.Time) bool {
	if t == nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.last.IsZero() {
		t.tokens = min(t.burst, t.tokens+now.Sub(t.last).Seconds()*t.rate)
	}
	t.last = now
	if t.tokens < 1 {
		return false
	}
	t.tokens--
	return true
}

// stageThrottle reads the HTTP API's DefaultRouteSettings from the
// template (nil when it sets none).
func (r *Runtime) stageThrottle() (*throttle, error) {
	for _, id := range r.cfg.Template.OfType("AWS::Serverless::HttpApi") {
		s := asMap(r.cfg.Template.Resources[id].Properties["DefaultRouteSettings"])
		if s == nil {
			continue
		}
		var vals [2]float64
		for i, k := range []string{"ThrottlingRateLimit", "ThrottlingBurstLimit"} {
			v, err := r.resolver().String(s[k])
			if err != nil {
				return nil, err
			}
			if vals[i], err = strconv.ParseFloat(v, 64); err != nil {
				return nil, err
			}
		}
		return &throttle{rate: vals[0], burst: vals[1], tokens: vals[1]}, nil
	}
	return nil, nil
}
