package awstools

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestToolsAndMoto: the pinned tools are installed (each command the
// checks run is there), botocore's models are found, and moto's server
// starts and answers an AWS call.
func TestToolsAndMoto(t *testing.T) {
	dir := Dir(t)
	for _, bin := range []string{"cfn-lint", "sam", "moto_server", "python"} {
		if _, err := os.Stat(Bin(dir, bin)); err != nil {
			t.Errorf("%s: %v", bin, err)
		}
	}
	models, err := ModelsDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(models + "/sqs/2012-11-05/service-2.json.gz"); err != nil {
		t.Errorf("no SQS model: %v", err)
	}
	m := StartMoto(t)
	req, _ := http.NewRequest(http.MethodPost, m.URL+"/", strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("ListQueues: %d %s", resp.StatusCode, b)
	}
}
