package template

import (
	"fmt"
	"regexp"
	"strings"
)

// Resolver evaluates intrinsic functions to strings, with a local stand-in
// for what CloudFormation would resolve in AWS.
type Resolver struct {
	// Ref resolves a parameter, a pseudo parameter (AWS::Region) or a
	// resource's Ref value.
	Ref func(name string) (string, error)
	// GetAtt resolves a resource attribute.
	GetAtt func(resource, attr string) (string, error)
	// Dynamic resolves a dynamic reference, given what is between
	// "{{resolve:" and "}}" (e.g. "secretsmanager:arn:SecretString:secret").
	Dynamic func(ref string) (string, error)
	// Conditions are the template's Conditions, for Fn::If.
	Conditions map[string]any
}

var (
	subVar     = regexp.MustCompile(`\$\{([^}]*)\}`)
	dynamicRef = regexp.MustCompile(`\{\{resolve:([^}]+)\}\}`)
)

// String resolves v to a string.
func (r Resolver) String(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return r.dynamic(x)
	case int, int64, float64, bool:
		return fmt.Sprint(x), nil
	case map[string]any:
		return r.fn(x)
	}
	return "", fmt.Errorf("template: cannot resolve %T to a string", v)
}

func (r Resolver) fn(m map[string]any) (string, error) {
	if len(m) != 1 {
		return "", fmt.Errorf("template: %v is not an intrinsic function", m)
	}
	for name, arg := range m {
		switch name {
		case "Ref":
			return r.Ref(asString(arg))
		case "Fn::GetAtt":
			s := asSlice(arg)
			if len(s) != 2 {
				return "", fmt.Errorf("template: bad Fn::GetAtt %v", arg)
			}
			return r.GetAtt(asString(s[0]), asString(s[1]))
		case "Fn::Sub":
			return r.sub(arg)
		case "Fn::If":
			s := asSlice(arg)
			if len(s) != 3 {
				return "", fmt.Errorf("template: bad Fn::If %v", arg)
			}
			ok, err := r.Condition(asString(s[0]))
			if err != nil {
				return "", err
			}
			if ok {
				return r.String(s[1])
			}
			return r.String(s[2])
		case "Fn::Join":
			s := asSlice(arg)
			if len(s) != 2 {
				return "", fmt.Errorf("template: bad Fn::Join %v", arg)
			}
			var parts []string
			for _, p := range asSlice(s[1]) {
				v, err := r.String(p)
				if err != nil {
					return "", err
				}
				parts = append(parts, v)
			}
			return strings.Join(parts, asString(s[0])), nil
		}
		return "", fmt.Errorf("template: %s is not supported by the local resolver", name)
	}
	return "", nil
}

// Condition evaluates a condition of the template by name.
func (r Resolver) Condition(name string) (bool, error) {
	c, ok := r.Conditions[name]
	if !ok {
		return false, fmt.Errorf("template: no condition %s", name)
	}
	return r.Bool(c)
}

// Bool evaluates a condition function: Fn::Equals, Fn::Not, Fn::And,
// Fn::Or, Condition.
func (r Resolver) Bool(v any) (bool, error) {
	m := asMap(v)
	if len(m) != 1 {
		return false, fmt.Errorf("template: %v is not a condition function", v)
	}
	for name, arg := range m {
		switch name {
		case "Condition":
			return r.Condition(asString(arg))
		case "Fn::Equals":
			s := asSlice(arg)
			if len(s) != 2 {
				return false, fmt.Errorf("template: bad Fn::Equals %v", arg)
			}
			a, err := r.String(s[0])
			if err != nil {
				return false, err
			}
			b, err := r.String(s[1])
			return a == b, err
		case "Fn::Not":
			s := asSlice(arg)
			if len(s) != 1 {
				return false, fmt.Errorf("template: bad Fn::Not %v", arg)
			}
			b, err := r.Bool(s[0])
			return !b, err
		case "Fn::And", "Fn::Or":
			all := name == "Fn::And"
			for _, c := range asSlice(arg) {
				b, err := r.Bool(c)
				if err != nil {
					return false, err
				}
				if b != all {
					return b, nil
				}
			}
			return all, nil
		}
		return false, fmt.Errorf("template: %s is not a supported condition function", name)
	}
	return false, nil
}

func (r Resolver) sub(arg any) (string, error) {
	tmpl, vars := "", map[string]any{}
	switch a := arg.(type) {
	case string:
		tmpl = a
	case []any:
		if len(a) != 2 {
			return "", fmt.Errorf("template: bad Fn::Sub %v", arg)
		}
		tmpl, vars = asString(a[0]), asMap(a[1])
	}
	var firstErr error
	out := subVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := m[2 : len(m)-1]
		if strings.HasPrefix(name, "!") {
			return "${" + name[1:] + "}"
		}
		var v string
		var err error
		switch {
		case vars[name] != nil:
			v, err = r.String(vars[name])
		case strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::"):
			res, attr, _ := strings.Cut(name, ".")
			v, err = r.GetAtt(res, attr)
		default:
			v, err = r.Ref(name)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	})
	if firstErr != nil {
		return "", firstErr
	}
	return r.dynamic(out)
}

func (r Resolver) dynamic(s string) (string, error) {
	var firstErr error
	out := dynamicRef.ReplaceAllStringFunc(s, func(m string) string {
		if r.Dynamic == nil {
			firstErr = fmt.Errorf("template: dynamic reference %s has no resolver", m)
			return ""
		}
		v, err := r.Dynamic(dynamicRef.FindStringSubmatch(m)[1])
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	})
	return out, firstErr
}
