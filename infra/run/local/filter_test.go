package local

import "testing"

func TestFilterPatterns(t *testing.T) {
	fs, err := parseFilters(map[string]any{"Filters": []any{
		map[string]any{"Pattern": `{"eventName":["INSERT"],"dynamodb":{"NewImage":{"entity":{"S":["event","delivery_request"]}}}}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(name, entity string) map[string]any {
		return map[string]any{"eventName": name, "dynamodb": map[string]any{"NewImage": map[string]any{"entity": map[string]any{"S": entity}}}}
	}
	cases := []struct {
		name  string
		event any
		want  bool
	}{
		{"insert of an event matches", rec("INSERT", "event"), true},
		{"insert of a listed entity matches", rec("INSERT", "delivery_request"), true},
		{"modify does not match", rec("MODIFY", "event"), false},
		{"other entity does not match", rec("INSERT", "contact"), false},
		{"missing image does not match", map[string]any{"eventName": "INSERT"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fs.match(c.event); got != c.want {
				t.Fatalf("match = %v", got)
			}
		})
	}
	ops, _ := parseFilters(map[string]any{"Filters": []any{map[string]any{"Pattern": `{"a":[{"prefix":"x"}],"b":[{"exists":false}],"c":[{"anything-but":["no"]}]}`}}})
	if !ops.match(map[string]any{"a": "xyz", "c": "yes"}) || ops.match(map[string]any{"a": "xyz", "b": 1, "c": "yes"}) || ops.match(map[string]any{"a": "xyz", "c": "no"}) {
		t.Fatal("operators misbehave")
	}
}
