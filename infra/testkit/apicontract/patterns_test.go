package apicontract_test

import (
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/sdk"
)

// TestIDPatternsAreTheServers: every id pattern in the document is the one
// the server enforces (ids.Pattern), so that a request the document allows
// is never refused for its id, and the reverse. A looser pattern let 41
// schema-valid requests be refused (ids whose ULID overflows 128 bits).
func TestIDPatternsAreTheServers(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal(sdk.OpenAPI, &root); err != nil {
		t.Fatal(err)
	}
	idPattern := regexp.MustCompile(`^\^([a-z]+)_`)
	found := map[string]int{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "pattern" && v.Kind == yaml.ScalarNode {
				if m := idPattern.FindStringSubmatch(v.Value); m != nil && m[1] != "whsec" {
					want := ids.Pattern(m[1])
					switch m[1] {
					case ids.Inspector:
						want = ids.InspectorPattern
					case strings.TrimSuffix(auth.SessionPrefix, "_"):
						want = auth.SessionTokenPattern
					}
					if v.Value != want {
						t.Errorf("line %d: id pattern %s, the server's is %s", v.Line, v.Value, want)
					}
					found[m[1]]++
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	for _, prefix := range []string{ids.Contact, ids.Message, ids.Import, ids.Run, ids.Event, ids.Request, ids.Project, ids.WebhookEndpoint, ids.Delivery, ids.Inspector, ids.DashboardSession} {
		if found[prefix] == 0 {
			t.Errorf("no pattern for %s_ ids in the document", prefix)
		}
	}
}
