package local

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// secretARN is the local ARN of a secret, what !Ref returns for it.
func secretARN(logicalID string) string {
	return fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s", Region, AccountID, logicalID)
}

// generateSecrets plays Secrets Manager for the template's secrets: a
// SecretString is taken as is; GenerateSecretString fills its template
// with a random value, as AWS does at stack creation.
func (r *Runtime) generateSecrets() error {
	r.secrets = map[string]map[string]string{}
	for _, id := range r.cfg.Template.OfType("AWS::SecretsManager::Secret") {
		p := r.cfg.Template.Resources[id].Properties
		values := map[string]string{}
		if s, ok := p["SecretString"].(string); ok {
			values[""] = s
			_ = json.Unmarshal([]byte(s), &values)
			r.secrets[id] = values
			continue
		}
		gen := asMap(p["GenerateSecretString"])
		if gen == nil {
			return fmt.Errorf("local: secret %s has neither SecretString nor GenerateSecretString", id)
		}
		if tmpl, _ := gen["SecretStringTemplate"].(string); tmpl != "" {
			if err := json.Unmarshal([]byte(tmpl), &values); err != nil {
				return fmt.Errorf("local: secret %s: SecretStringTemplate: %w", id, err)
			}
		}
		length := intProp(gen, "PasswordLength", 32)
		key, _ := gen["GenerateStringKey"].(string)
		values[key] = randomAlnum(length)
		whole, _ := json.Marshal(values)
		values[""] = string(whole)
		r.secrets[id] = values
	}
	return nil
}

// resolveSecret resolves "secretsmanager:<id or arn>:SecretString[:<json key>]".
func (r *Runtime) resolveSecret(ref string) (string, error) {
	rest, ok := strings.CutPrefix(ref, "secretsmanager:")
	if !ok {
		return "", fmt.Errorf("local: cannot resolve {{resolve:%s}}", ref)
	}
	id, field, ok := strings.Cut(rest, ":SecretString")
	if !ok {
		return "", fmt.Errorf("local: {{resolve:%s}} must read SecretString", ref)
	}
	field = strings.TrimPrefix(field, ":")
	field, _, _ = strings.Cut(field, ":") // version stage / id are not emulated
	for logical, values := range r.secrets {
		if id == logical || id == secretARN(logical) {
			v, ok := values[field]
			if !ok {
				return "", fmt.Errorf("local: secret %s has no key %q", logical, field)
			}
			return v, nil
		}
	}
	return "", fmt.Errorf("local: no secret %s in the template", id)
}

func randomAlnum(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		x, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[x.Int64()]
	}
	return string(b)
}
