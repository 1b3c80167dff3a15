package webhook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSignaturesMatchTheSharedVectors: what the deliver function sends is
// what the receiver kit verifies (sdk/go/webhook uses the same file).
func TestSignaturesMatchTheSharedVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "sdk", "go", "webhook", "testdata", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Name      string   `json:"name"`
			Secrets   []string `json:"secrets"`
			ID        string   `json:"webhook_id"`
			Timestamp int64    `json:"webhook_timestamp"`
			Body      string   `json:"body"`
			Botix     string   `json:"x_botix_signature"`
			Standard  string   `json:"webhook_signature"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, v := range file.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			h, err := SignedHeaders(v.Secrets, v.ID, v.Timestamp, []byte(v.Body))
			if err != nil {
				t.Fatal(err)
			}
			if h[HeaderSignature] != v.Botix || h[HeaderStdSig] != v.Standard || h[HeaderID] != v.ID {
				t.Fatalf("signed %v, vector says %s / %s", h, v.Botix, v.Standard)
			}
		})
	}
}
