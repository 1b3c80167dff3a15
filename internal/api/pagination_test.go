package api_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/functionenv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

type page struct {
	Data []struct {
		ID        string   `json:"id"`
		Tags      []string `json:"tags"`
		CreatedAt string   `json:"created_at"`
		Status    string   `json:"status"`
	} `json:"data"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

func decodePage(t *testing.T, resp events.APIGatewayV2HTTPResponse) page {
	t.Helper()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, resp.Body)
	}
	var p page
	apitest.Reply{Body: []byte(resp.Body)}.JSON(t, &p)
	if (p.NextCursor == nil) == p.HasMore {
		t.Fatalf("next_cursor must be null exactly when has_more is false: %s", resp.Body)
	}
	return p
}

// seed loads n contacts 1 ms apart ending at end; every 3rd is tagged vip,
// every 5th lead. It returns their ids, newest first.
func seed(t *testing.T, h *harness, n int, end time.Time) []string {
	t.Helper()
	contacts := make([]domain.Contact, n)
	for i := range contacts {
		at := end.Add(-time.Duration(n-1-i) * time.Millisecond)
		c := domain.Contact{ID: ids.New(ids.Contact, at), Phone: fmt.Sprintf("+7999%07d", i), Name: "c", Tags: []string{}, CreatedAt: ids.Timestamp(at)}
		if i%3 == 0 {
			c.Tags = append(c.Tags, "vip")
		}
		if i%5 == 0 {
			c.Tags = append(c.Tags, "lead")
		}
		contacts[i] = c
	}
	if err := h.store.SeedContacts(context.Background(), h.project, contacts, 8); err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i, c := range contacts {
		out[n-1-i] = c.ID
	}
	return out
}

// walk follows next_cursor through the list at path from its first page
// to the end and returns the ids in order. has_more is exact: the last
// page says false with a null next_cursor — even when it is full — and no
// empty page follows a full one; only a list filtered after reading
// (filtered) may return an empty page with has_more.
func walk(t *testing.T, list app.HTTPHandler, h *harness, path, query string, filtered bool) []string {
	t.Helper()
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		q := query
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p := decodePage(t, call(t, list, h.get("GET "+path, path, q)))
		for _, c := range p.Data {
			got = append(got, c.ID)
		}
		if !p.HasMore {
			if p.NextCursor != nil {
				t.Fatal("has_more false with a next_cursor")
			}
			if len(p.Data) == 0 && pages > 0 && !filtered {
				t.Fatalf("page %d is empty: the page before it was the last and said has_more true", pages+1)
			}
			return got
		}
		if p.NextCursor == nil {
			t.Fatal("has_more true without a next_cursor")
		}
		if len(p.Data) == 0 && !filtered {
			t.Fatal("a page without a read-time filter came back empty with has_more")
		}
		cursor = *p.NextCursor
		if pages > 5000 {
			t.Fatal("walk does not end")
		}
	}
}

func TestCursorWalks(t *testing.T) {
	h := newHarness(t)
	end := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	all := seed(t, h, 1200, end)
	list := h.fn(app.ListContacts)
	var vip, lead, window []string
	from, to := end.Add(-900*time.Millisecond), end.Add(-300*time.Millisecond)
	for i, id := range all {
		u, _ := ids.Parse(ids.Contact, id)
		at := ids.Time(u)
		idx := len(all) - 1 - i
		if idx%3 == 0 {
			vip = append(vip, id)
		}
		if idx%5 == 0 {
			lead = append(lead, id)
		}
		if at.After(from) && at.Before(to) {
			window = append(window, id)
		}
	}
	cases := []struct {
		name, query string
		want        []string
	}{
		{"limit 1", "cursor_limit=1", all},
		{"limit 7", "cursor_limit=7", all},
		{"limit 100", "cursor_limit=100", all},
		{"limit 200", "cursor_limit=200", all},
		{"limit 120: 1200 items are exactly 10 full pages, the 10th ends the walk", "cursor_limit=120", all},
		{"default limit", "", all},
		{"tag vip, limit 7", "tag=vip&cursor_limit=7", vip},
		{"tag lead, limit 200", "tag=lead&cursor_limit=200", lead},
		{"empty window (after > before)", "created_after=" + url.QueryEscape(to.Format(time.RFC3339Nano)) + "&created_before=" + url.QueryEscape(from.Format(time.RFC3339Nano)), nil},
		{"created window, limit 13", "created_after=" + url.QueryEscape(from.Format(time.RFC3339Nano)) + "&created_before=" + url.QueryEscape(to.Format(time.RFC3339Nano)) + "&cursor_limit=13", window},
	}
	for _, c := range cases {
		t.Run(c.name+": every item exactly once, newest first", func(t *testing.T) {
			got := walk(t, list, h, "/public/v1/contacts", c.query, false)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("walk returned %d items, want %d (first diff at %d)", len(got), len(c.want), firstDiff(got, c.want))
			}
		})
	}
}

func firstDiff(a, b []string) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

func TestSnapshotSemantics(t *testing.T) {
	h := newHarness(t)
	all := seed(t, h, 300, time.Now().Add(-time.Minute))
	list := h.fn(app.ListContacts)
	create := h.fn(app.CreateContact)

	t.Run("contacts created during a walk never appear; every existing one appears once", func(t *testing.T) {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // concurrent writer
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				call(t, create, h.contact(newKey(), fmt.Sprintf(`{"phone":"+7988%07d","name":"new"}`, i)))
			}
		}()
		got := walk(t, list, h, "/public/v1/contacts", "cursor_limit=9", false)
		close(stop)
		wg.Wait()
		// The first page may include contacts created before it was read;
		// from then on nothing new appears.
		first := map[string]bool{}
		for _, id := range all {
			first[id] = true
		}
		var seen []string
		for _, id := range got {
			if first[id] {
				seen = append(seen, id)
			} else if len(seen) > 0 {
				t.Fatalf("contact %s created during the walk appeared after the first page", id)
			}
		}
		if strings.Join(seen, ",") != strings.Join(all, ",") {
			t.Fatalf("pre-existing contacts: got %d, want %d exactly once in order", len(seen), len(all))
		}
	})
	t.Run("deleting the item at the cursor position does not break the next page", func(t *testing.T) {
		p := decodePage(t, call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5")))
		last := p.Data[len(p.Data)-1].ID
		u, _ := ids.Parse(ids.Contact, last)
		_, err := h.store.DB.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
			TableName: aws.String(h.tables.Data),
			Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "P#" + h.project + "#CT"}, "sk": &types.AttributeValueMemberS{Value: u.String()}},
		})
		if err != nil {
			t.Fatal(err)
		}
		next := decodePage(t, call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5&cursor="+url.QueryEscape(*p.NextCursor))))
		if len(next.Data) != 5 || next.Data[0].ID >= last {
			t.Fatalf("next page after a deleted cursor item: %+v", next.Data)
		}
	})
}

func TestCursorErrors(t *testing.T) {
	h := newHarness(t)
	seed(t, h, 30, time.Now())
	list := h.fn(app.ListContacts)
	listMessages := h.fn(app.ListMessages)
	p := decodePage(t, call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5&tag=vip")))
	tok := *p.NextCursor
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	raw[len(raw)-3] ^= 0x20
	flipped := base64.RawURLEncoding.EncodeToString(raw)
	other := newHarness(t)
	other.tables, other.store = h.tables, h.store
	otherList := h.fnFor(other, app.ListContacts)

	checkAnswers(t, []answerCase{
		{"cursor_limit 0 -> 400 INVALID_PARAMETER", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=0"), 400, "INVALID_PARAMETER"},
		{"cursor_limit 201 -> 400 INVALID_PARAMETER", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=201"), 400, "INVALID_PARAMETER"},
		{"cursor_limit abc -> 400 INVALID_PARAMETER", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=abc"), 400, "INVALID_PARAMETER"},
		{"unknown parameter -> 400 INVALID_PARAMETER", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "tags=vip"), 400, "INVALID_PARAMETER"},
		{"bad created_after -> 400 INVALID_PARAMETER", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "created_after=yesterday"), 400, "INVALID_PARAMETER"},
		{"not base64 -> 400 INVALID_CURSOR", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=vip&cursor=%25%25%25"), 400, "INVALID_CURSOR"},
		{"truncated -> 400 INVALID_CURSOR", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=vip&cursor="+tok[:20]), 400, "INVALID_CURSOR"},
		{"flipped byte -> 400 INVALID_CURSOR", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=vip&cursor="+flipped), 400, "INVALID_CURSOR"},
		{"other filters -> 400 INVALID_CURSOR", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=lead&cursor="+tok), 400, "INVALID_CURSOR"},
		{"filters dropped -> 400 INVALID_CURSOR", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor="+tok), 400, "INVALID_CURSOR"},
		{"other endpoint -> 400 INVALID_CURSOR", listMessages, h.get("GET /public/v1/messages", "/public/v1/messages", "cursor="+tok), 400, "INVALID_CURSOR"},
		{"another project's cursor -> 400 INVALID_CURSOR, never its data", otherList, other.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=vip&cursor="+tok), 400, "INVALID_CURSOR"},
		{"unknown key id -> 400 INVALID_CURSOR", h.fn(app.ListContacts), h.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=vip&cursor=AQJrOQ"+tok[6:]), 400, "INVALID_CURSOR"},
		{"the same cursor with its filters -> 200", list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "tag=vip&cursor_limit=50&cursor="+tok), 200, ""},
	})
}

func TestSigningKeyRotation(t *testing.T) {
	h := newHarness(t)
	seed(t, h, 20, time.Now())
	const k1, k2 = "k1:first-secret-0123456789abcdef0123456789", "k2:second-secret-0123456789abcdef012345678"
	with := func(keys string) app.HTTPHandler {
		h.env = functionenv.PaginationEnv()
		h.env[app.EnvCursorKeys] = keys
		return h.fn(app.ListContacts)
	}
	before := with(k1)
	old := *decodePage(t, call(t, before, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5"))).NextCursor
	rotated := with(k2 + "," + k1)
	t.Run("a walk in progress survives the rotation (old kid verifies)", func(t *testing.T) {
		decodePage(t, call(t, rotated, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5&cursor="+old)))
	})
	t.Run("the new kid signs", func(t *testing.T) {
		fresh := *decodePage(t, call(t, rotated, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5"))).NextCursor
		if r := call(t, before, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5&cursor="+fresh)); code(r) != "INVALID_CURSOR" {
			t.Fatalf("a function without k2 accepted a k2 cursor: %d", r.StatusCode)
		}
	})
	t.Run("a removed kid -> INVALID_CURSOR", func(t *testing.T) {
		if r := call(t, with(k2), h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=5&cursor="+old)); code(r) != "INVALID_CURSOR" {
			t.Fatalf("got %d %s", r.StatusCode, r.Body)
		}
	})
}

func TestOneQueryPerFullPage(t *testing.T) {
	h := newHarness(t)
	seed(t, h, 250, time.Now())
	list := h.fn(app.ListContacts)
	call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=1")) // warm the key cache
	for _, q := range []string{"cursor_limit=20", "cursor_limit=200", "tag=vip&cursor_limit=50"} {
		t.Run(q, func(t *testing.T) {
			h.calls.Reset()
			p := decodePage(t, call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", q)))
			if ops := h.calls.Ops(); len(ops) != 1 || ops[0] != "Query" || !p.HasMore {
				t.Fatalf("calls %v (has_more %v)", ops, p.HasMore)
			}
		})
	}
}

func TestFilterExpressionFillsPagesWithinTheBudget(t *testing.T) {
	h := newHarness(t)
	contact := seed(t, h, 1, time.Now())[0]
	// 600 messages, one in 40 sent: a status filter DynamoDB can only
	// apply after reading.
	var items []types.WriteRequest
	var sent []string
	start := time.Now().Add(-time.Hour)
	for i := 0; i < 600; i++ {
		at := start.Add(time.Duration(i) * time.Millisecond)
		id := ids.New(ids.Message, at)
		u, _ := ids.Parse(ids.Message, id)
		status := domain.MessageQueued
		if i%40 == 0 {
			status = domain.MessageSent
			sent = append([]string{id}, sent...)
		}
		items = append(items, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": s("P#" + h.project + "#MSG"), "sk": s(u.String()), "gsi1pk": s("P#" + h.project + "#CT#" + contact + "#MSG"), "gsi1sk": s(u.String()),
			"entity": s("message"), "id": s(id), "contact_id": s(contact), "channel": s("sms"), "text": s("t"), "status": s(status), "created_at": s(ids.Timestamp(at)),
		}}})
	}
	if err := batch(h, items); err != nil {
		t.Fatal(err)
	}
	list := h.fn(app.ListMessages)
	t.Run("a filtered page is full although most items are dropped", func(t *testing.T) {
		p := decodePage(t, call(t, list, h.get("GET /public/v1/messages", "/public/v1/messages", "status=sent&cursor_limit=10")))
		if len(p.Data) != 10 || !p.HasMore {
			t.Fatalf("got %d items, has_more %v", len(p.Data), p.HasMore)
		}
		for i, m := range p.Data {
			if m.Status != "sent" || m.ID != sent[i] {
				t.Fatalf("item %d = %+v", i, m)
			}
		}
	})
	t.Run("walking the filtered list returns every match once; has_more false at the end", func(t *testing.T) {
		got := walk(t, list, h, "/public/v1/messages", "status=sent&contact_id="+contact+"&cursor_limit=4", true)
		if strings.Join(got, ",") != strings.Join(sent, ",") {
			t.Fatalf("got %d, want %d", len(got), len(sent))
		}
	})
	t.Run("no match in the whole list -> one empty final page", func(t *testing.T) {
		p := decodePage(t, call(t, list, h.get("GET /public/v1/messages", "/public/v1/messages", "status=failed&cursor_limit=10")))
		if len(p.Data) != 0 || p.HasMore {
			t.Fatalf("600 items fit the budget of 2000: expected an empty final page, got %d items, has_more %v", len(p.Data), p.HasMore)
		}
	})
	t.Run("read budget spent -> what was found plus a cursor that resumes after the last read item", func(t *testing.T) {
		var newer []types.WriteRequest
		for i := 0; i < store.ReadBudget+600; i++ {
			at := time.Now().Add(-30 * time.Minute).Add(time.Duration(i) * time.Millisecond)
			u := ids.NewULID(at).String()
			newer = append(newer, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": s("P#" + h.project + "#MSG"), "sk": s(u), "entity": s("message"), "id": s("msg_" + u), "contact_id": s(contact),
				"channel": s("sms"), "text": s("t"), "status": s(domain.MessageQueued), "created_at": s(ids.Timestamp(at)),
			}}})
		}
		if err := batch(h, newer); err != nil {
			t.Fatal(err)
		}
		h.calls.Reset()
		p := decodePage(t, call(t, list, h.get("GET /public/v1/messages", "/public/v1/messages", "status=sent&cursor_limit=10")))
		if len(p.Data) != 0 || !p.HasMore {
			t.Fatalf("first %d items are non-matching: want an empty page with has_more, got %d items, has_more %v", store.ReadBudget, len(p.Data), p.HasMore)
		}
		got := walk(t, list, h, "/public/v1/messages", "status=sent&cursor_limit=10", true)
		if strings.Join(got, ",") != strings.Join(sent, ",") {
			t.Fatalf("after the budget cut, the walk found %d of %d matches", len(got), len(sent))
		}
	})
}

func batch(h *harness, reqs []types.WriteRequest) error {
	for i := 0; i < len(reqs); i += 25 {
		if _, err := h.store.DB.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{h.tables.Data: reqs[i:min(i+25, len(reqs))]}}); err != nil {
			return err
		}
	}
	return nil
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestOffsetMode(t *testing.T) {
	h := newHarness(t)
	all := seed(t, h, 60, time.Now())
	list := h.fn(app.ListContacts)
	t.Run("offset page with deprecation headers", func(t *testing.T) {
		r := call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "pagination=offset&offset=10&limit=5"))
		if r.StatusCode != 200 || strings.Contains(r.Body, "next_cursor") {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		var p page
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &p)
		if len(p.Data) != 5 || p.Data[0].ID != all[10] || !p.HasMore {
			t.Fatalf("page %+v", p)
		}
		want := map[string]string{
			"X-Api-Notice": "pagination=offset deprecated, migrate by 2027-05-01",
			"Deprecation":  "@1777593600",
			"Sunset":       "Sat, 01 May 2027 00:00:00 GMT",
			"Link":         `<https://developers.botix.pro/changelog/cursor-pagination>; rel="deprecation"; type="text/html"`,
		}
		for k, v := range want {
			if r.Headers[k] != v {
				t.Errorf("%s = %q, want %q", k, r.Headers[k], v)
			}
		}
	})
	t.Run("offset 0 is the first page", func(t *testing.T) {
		r := call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "pagination=offset&offset=0&limit=3"))
		var p page
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &p)
		if r.StatusCode != 200 || len(p.Data) != 3 || p.Data[0].ID != all[0] {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	t.Run("last offset page has has_more false", func(t *testing.T) {
		r := call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "pagination=offset&offset=55&limit=5"))
		var p page
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &p)
		if len(p.Data) != 5 || p.HasMore {
			t.Fatalf("page %+v", p)
		}
	})
	t.Run("offset past the end -> empty page", func(t *testing.T) {
		r := call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "pagination=offset&offset=500&limit=5"))
		if r.StatusCode != 200 || !strings.Contains(r.Body, `"data":[]`) || !strings.Contains(r.Body, `"has_more":false`) {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	t.Run("offset past the maximum -> 400 OFFSET_TOO_LARGE pointing to cursors", func(t *testing.T) {
		r := call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", "pagination=offset&offset=10001"))
		if r.StatusCode != 400 || code(r) != "OFFSET_TOO_LARGE" || !strings.Contains(r.Body, "cursor") {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	for q, field := range map[string]string{"pagination=offset&limit=201": "limit", "pagination=offset&offset=-1": "offset", "pagination=pages": "pagination", "offset=5": "offset", "pagination=offset&cursor=x": "cursor"} {
		t.Run(q+" -> 400 INVALID_PARAMETER", func(t *testing.T) {
			r := call(t, list, h.get("GET /public/v1/contacts", "/public/v1/contacts", q))
			if r.StatusCode != 400 || code(r) != "INVALID_PARAMETER" || !strings.Contains(r.Body, `"field":"`+field+`"`) {
				t.Fatalf("%d %s", r.StatusCode, r.Body)
			}
		})
	}
}

func TestCount(t *testing.T) {
	h := newHarness(t)
	seed(t, h, 37, time.Now())
	create := h.fn(app.CreateContact)
	call(t, create, h.contact(newKey(), `{"phone":"+79000000001","name":"a"}`))
	count := h.fn(app.CountContacts)
	h.calls.Reset()
	r := call(t, count, h.get("GET /public/v1/contacts/count", "/public/v1/contacts/count", ""))
	if r.StatusCode != 200 || r.Body != `{"total":38}` {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	if ops := h.calls.Ops(); strings.Count(strings.Join(ops, ","), "Query") != 1 || strings.Contains(strings.Join(ops, ","), "Scan") {
		t.Fatalf("count made %v, want one Query", ops)
	}
}
