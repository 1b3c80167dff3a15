package botix_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	"github.com/botix/public-api/sdk/go/botix"
)

// exampleAPI is a stand-in for the API in the examples: it keeps contacts,
// honours Idempotency-Key like the real one, drops the answer of the very
// first create (as a flaky network would), and lists contacts two per page.
func exampleAPI() *httptest.Server {
	var mu sync.Mutex
	byKey := map[string][]byte{}
	phones := map[string]bool{}
	var contacts []botix.Contact
	dropped := false
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_example")
		if r.Method == http.MethodGet {
			from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
			to := min(from+2, len(contacts))
			page := map[string]any{"data": contacts[from:to], "next_cursor": nil, "has_more": to < len(contacts)}
			if to < len(contacts) {
				page["next_cursor"] = strconv.Itoa(to)
			}
			_ = json.NewEncoder(w).Encode(page)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		if stored, ok := byKey[key]; ok {
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(stored)
			return
		}
		var in botix.ContactCreate
		_ = json.NewDecoder(r.Body).Decode(&in)
		if phones[in.Phone] {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"error":{"code":"CONTACT_ALREADY_EXISTS","message":"a contact with this phone exists","request_id":"req_example"}}`)
			return
		}
		c := botix.Contact{ID: fmt.Sprintf("ct_%d", len(contacts)+1), Phone: in.Phone, Name: in.Name, Tags: []string{}, CreatedAt: "2026-11-29T08:00:00Z"}
		phones[in.Phone] = true
		contacts = append([]botix.Contact{c}, contacts...)
		byKey[key], _ = json.Marshal(c)
		if !dropped {
			dropped = true
			drop(w)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(byKey[key])
	}))
}

// Every mutating call carries one Idempotency-Key for the whole logical
// operation. Here the first answer is lost on the way back; the retry with
// the same key gets the stored answer, and the contact exists once.
func Example_createWithRetry() {
	api := exampleAPI()
	defer api.Close()
	client := botix.NewClient("bx_live_...", botix.WithBaseURL(api.URL))

	c, err := client.Contacts.Create(context.Background(), botix.ContactCreate{Phone: "+79990000000", Name: "Ivan"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s %s: %d attempts, replayed %v\n", c.ID, c.Name, c.Response.Attempts, c.Response.Replayed)
	// Output: ct_1 Ivan: 2 attempts, replayed true
}

// All follows the cursors; breaking out of the loop stops fetching, and a
// saved NextCursor resumes a walk later.
func ExampleContactsService_All() {
	api := exampleAPI()
	defer api.Close()
	client := botix.NewClient("bx_live_...", botix.WithBaseURL(api.URL))
	ctx := context.Background()
	for i, name := range []string{"Ivan", "Olga", "Pyotr"} {
		_, _ = client.Contacts.Create(ctx, botix.ContactCreate{Phone: fmt.Sprintf("+7999000000%d", i), Name: name})
	}

	for c, err := range client.Contacts.All(ctx, botix.ContactListParams{}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(c.Name)
	}
	// Output:
	// Pyotr
	// Olga
	// Ivan
}

// API errors are *botix.Error values; compare Code with the constants.
func ExampleError() {
	api := exampleAPI()
	defer api.Close()
	client := botix.NewClient("bx_live_...", botix.WithBaseURL(api.URL))
	ctx := context.Background()
	in := botix.ContactCreate{Phone: "+79990000000", Name: "Ivan"}
	_, _ = client.Contacts.Create(ctx, in)

	_, err := client.Contacts.Create(ctx, in) // another logical operation: a new key
	var apiErr *botix.Error
	if errors.As(err, &apiErr) && apiErr.Code == botix.CodeContactAlreadyExists {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
	}
	// Output: 409 CONTACT_ALREADY_EXISTS req_example
}

// A mutating call that fails returns a *botix.OperationError with the
// Idempotency-Key its attempts sent: the operation may have happened (an
// answer lost after the API acted). Re-issuing it with that key is the same
// operation — the API replays the stored result or runs it once — where a
// plain second call would be a new operation. Here the client never
// retries and the first answer is lost.
func ExampleOperationError_Reissue() {
	api := exampleAPI()
	defer api.Close()
	client := botix.NewClient("bx_live_...", botix.WithBaseURL(api.URL), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1}))
	ctx := context.Background()
	in := botix.ContactCreate{Phone: "+79990000000", Name: "Ivan"}

	c, err := client.Contacts.Create(ctx, in)
	var opErr *botix.OperationError
	if errors.As(err, &opErr) && opErr.Reissuable() {
		fmt.Printf("failed after %d attempt, errors.Is ErrGaveUp: %v\n", opErr.Attempts, errors.Is(err, botix.ErrGaveUp))
		c, err = client.Contacts.Create(ctx, in, opErr.Reissue())
	}
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s: replayed %v, same key %v\n", c.ID, c.Response.Replayed, c.Response.IdempotencyKey == opErr.IdempotencyKey)
	// Output:
	// failed after 1 attempt, errors.Is ErrGaveUp: true
	// ct_1: replayed true, same key true
}
