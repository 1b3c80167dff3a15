package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/botix/public-api/internal/webhook/addrguard"
)

func TestSenderRefusesForbiddenAddressesAtDialTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()
	// The URL passed registration (think: a DNS name that now resolves to
	// loopback); the dialer still refuses.
	strict := NewSender(addrguard.Guard{}, time.Second, time.Second)
	if r := strict.Post(context.Background(), srv.URL, []byte("{}"), nil); r.Class != ClassForbidden || r.Status != 0 {
		t.Fatalf("strict sender reached loopback: %+v", r)
	}
	local := NewSender(addrguard.Guard{AllowLoopback: true}, time.Second, time.Second)
	if r := local.Post(context.Background(), srv.URL, []byte("{}"), nil); r.Status != 200 {
		t.Fatalf("local sender: %+v", r)
	}
}

func TestSenderDoesNotFollowRedirectsAndKeeps4KB(t *testing.T) {
	big := make([]byte, 10000)
	for i := range big {
		big[i] = 'x'
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(500)
		_, _ = w.Write(big)
	}))
	defer srv.Close()
	s := NewSender(addrguard.Guard{AllowLoopback: true}, time.Second, time.Second)
	if r := s.Post(context.Background(), srv.URL+"/moved", []byte("{}"), nil); r.Status != http.StatusFound {
		t.Fatalf("redirect followed: %+v", r.Status)
	}
	if r := s.Post(context.Background(), srv.URL, []byte("{}"), nil); r.Status != 500 || len(r.Body) != MaxResponseBody {
		t.Fatalf("kept %d bytes of the body", len(r.Body))
	}
}

func TestDeliveryIDIsDerived(t *testing.T) {
	a, err := DeliveryID("evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H", "we_01JDQ7X3ZV8N5W2K4R6T9Y1B3G")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DeliveryID("evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H", "we_01JDQ7X3ZV8N5W2K4R6T9Y1B3G")
	c, _ := DeliveryID("evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H", "we_01JDQ7X3ZV8N5W2K4R6T9Y1B3K")
	if a != b || a == c || a[:14] != "dlv_01JDQ7X3ZV" {
		t.Fatalf("%s %s %s", a, b, c)
	}
}
