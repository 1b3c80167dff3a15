package apicontract

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// PublicDocuments are the paths of GetApiReferenceFunction's documents:
// files, not resources, with no query.
var PublicDocuments = map[string]bool{"/public/v1/openapi.json": true, "/public/v1/error-codes": true, "/public/v1/changelog.atom": true}

// QueryParameters is, for each GET operation of /public/v1 in the
// document spec (the public documents aside), its query parameters and
// whether each is deprecated. The Go SDK's test (infra/e2e/integrator) and
// every SDK's list-params conformance scenario compare an SDK's list
// parameters with it.
func QueryParameters(spec []byte) (map[string]map[string]bool, error) {
	type param struct {
		Ref        string `yaml:"$ref"`
		Name       string `yaml:"name"`
		In         string `yaml:"in"`
		Deprecated bool   `yaml:"deprecated"`
	}
	var d struct {
		Paths map[string]struct {
			Get *struct {
				Parameters []param `yaml:"parameters"`
			} `yaml:"get"`
		} `yaml:"paths"`
		Components struct {
			Parameters map[string]param `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(spec, &d); err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for path, item := range d.Paths {
		if item.Get == nil || !strings.HasPrefix(path, "/public/v1/") || PublicDocuments[path] {
			continue
		}
		out[path] = map[string]bool{}
		for _, p := range item.Get.Parameters {
			if p.Ref != "" {
				p = d.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
			}
			if p.In == "query" {
				out[path][p.Name] = p.Deprecated
			}
		}
	}
	return out, nil
}
