package local

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// What keeps a web page the developer has open away from the local
// runtime. A page can send a "simple" cross-origin request — POST with a
// text/plain, form or multipart body and no custom header — without asking
// first, and through DNS rebinding (its own host name resolving to
// 127.0.0.1) it can even read the answers. So:
//
//   - both servers answer only requests addressed to a loopback host at
//     their own port (127.0.0.1, localhost, [::1]): a rebound page's
//     requests carry its own host name;
//   - the AWS endpoint takes only SigV4-signed requests with the local
//     credentials and a JSON/AWS media type (or none, as the CLI sends for
//     Lambda Invoke), and no request a browser marked with Origin. The
//     secret ("local") is printed by make run, so the signature is not what
//     stops a page: an Authorization header or an AWS media type cannot be
//     sent cross-origin without a CORS preflight, which the endpoint never
//     grants; the check makes the headers a page would need mandatory.

// LocalAccessKey and LocalSecretKey are the only credentials the local AWS
// endpoint accepts (make run prints them for the AWS CLI).
const (
	LocalAccessKey = "local"
	LocalSecretKey = "local"
)

// maxSignedBody bounds what the AWS endpoint reads to check a signature:
// DynamoDB's largest request (BatchWriteItem, 16 MB) with room to spare.
const maxSignedBody = 20 << 20

// loopbackHost reports whether a Host header names this machine's
// loopback interface at port.
func loopbackHost(host, port string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		h, p = strings.Trim(host, "[]"), "80"
	}
	if p != port {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// portOf is the port a listener took.
func portOf(l net.Listener) string {
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// awsMediaTypes are the Content-Types of the AWS protocols the endpoint
// serves: the JSON protocols (DynamoDB 1.0, SQS 1.0), REST-JSON
// (Scheduler, Lambda) and the SDKs' Lambda Invoke payload.
var awsMediaTypes = map[string]bool{
	"application/x-amz-json-1.0": true,
	"application/x-amz-json-1.1": true,
	"application/json":           true,
	"application/octet-stream":   true,
}

// guardAWS refuses what the AWS endpoint must not serve, answering in the
// AWS error shape the SDKs parse; it returns false when it answered.
func (r *Runtime) guardAWS(w http.ResponseWriter, req *http.Request) bool {
	port := portOf(r.awsListener)
	if !loopbackHost(req.Host, port) {
		writeAWSError(w, http.StatusForbidden, "AccessDeniedException", "the local AWS endpoint answers requests addressed to 127.0.0.1:"+port+", localhost:"+port+" or [::1]:"+port+" only, not to Host "+strconv.Quote(req.Host)+" (a web page reaching it through DNS rebinding)")
		return false
	}
	if origin := req.Header.Get("Origin"); origin != "" {
		writeAWSError(w, http.StatusForbidden, "AccessDeniedException", "the local AWS endpoint does not answer web pages (this request comes from origin "+strconv.Quote(origin)+"); the AWS CLI and SDKs send no Origin")
		return false
	}
	if ct := req.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		switch {
		case mt == "application/x-www-form-urlencoded" && strings.HasPrefix(req.Header.Get("Authorization"), "AWS4-HMAC-SHA256 "):
			// SQS's query protocol, which SDKs and CLIs used until 2024.
			writeAWSError(w, http.StatusBadRequest, "UnsupportedProtocol", "the local SQS speaks SQS's JSON protocol only (X-Amz-Target: AmazonSQS.*); this request uses the older query protocol: update the AWS CLI or SDK")
			return false
		case !awsMediaTypes[mt]:
			writeAWSError(w, http.StatusForbidden, "AccessDeniedException", "the local AWS endpoint takes the AWS protocols' media types (application/x-amz-json-1.0, application/x-amz-json-1.1, application/json, application/octet-stream, or none), not "+strconv.Quote(ct))
			return false
		}
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxSignedBody+1))
	if err != nil || len(body) > maxSignedBody {
		writeAWSError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLargeException", "the request body exceeds the local AWS endpoint's 20 MB")
		return false
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if code, msg := verifySigV4(req, body); code != "" {
		writeAWSError(w, http.StatusForbidden, code, msg)
		return false
	}
	return true
}

// sigV4 is a parsed Authorization header of AWS Signature Version 4.
type sigV4 struct {
	accessKey, date, region, service string
	signedHeaders, signature         string
}

// parseSigV4 reads "AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/
// <service>/aws4_request, SignedHeaders=..., Signature=...".
func parseSigV4(h string) (sigV4, bool) {
	rest, ok := strings.CutPrefix(h, "AWS4-HMAC-SHA256 ")
	if !ok {
		return sigV4{}, false
	}
	var s sigV4
	var credential string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			s.signedHeaders = v
		case "Signature":
			s.signature = v
		}
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[4] != "aws4_request" || s.signedHeaders == "" || s.signature == "" {
		return sigV4{}, false
	}
	s.accessKey, s.date, s.region, s.service = scope[0], scope[1], scope[2], scope[3]
	return s, true
}

// verifySigV4 checks the request's signature with the local secret: it
// signs a copy of the request holding only the headers the client signed,
// with the SDK's own signer, and compares. A signature dated more than
// MaxSigV4Skew from the clock is refused first, as AWS refuses it. It returns the AWS error code
// and message of a refusal, or "" for a valid signature.
func verifySigV4(req *http.Request, body []byte) (code, message string) {
	const howTo = "the local AWS endpoint takes requests signed (AWS Signature Version 4) with the local credentials, AWS_ACCESS_KEY_ID=local and AWS_SECRET_ACCESS_KEY=local, as the AWS CLI and SDKs sign them"
	auth := req.Header.Get("Authorization")
	if auth == "" {
		return "MissingAuthenticationTokenException", "Missing Authentication Token: " + howTo
	}
	s, ok := parseSigV4(auth)
	if !ok {
		return "IncompleteSignatureException", "the Authorization header is not AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, SignedHeaders=..., Signature=...: " + howTo
	}
	if s.accessKey != LocalAccessKey {
		return "UnrecognizedClientException", "The security token included in the request is invalid: access key " + strconv.Quote(s.accessKey) + " is unknown here; " + howTo
	}
	at, err := time.Parse("20060102T150405Z", req.Header.Get("X-Amz-Date"))
	if err != nil {
		return "IncompleteSignatureException", "the request has no valid X-Amz-Date (yyyymmddThhmmssZ): " + howTo
	}
	if code, msg := skewed(at, time.Now()); code != "" {
		return code, msg
	}
	headers := strings.Split(s.signedHeaders, ";")
	signed := map[string]bool{}
	for _, h := range headers {
		signed[h] = true
	}
	if !signed["host"] || !signed["x-amz-date"] {
		return "IncompleteSignatureException", "the signature must cover host and x-amz-date: " + howTo
	}
	u := *req.URL
	u.Scheme, u.Host = "http", req.Host
	copyReq, err := http.NewRequestWithContext(context.Background(), req.Method, u.String(), nil)
	if err != nil {
		return "InvalidSignatureException", "the request URL cannot be signed: " + howTo
	}
	copyReq.Host = req.Host
	// The signer signs Content-Length when the length is positive, as the
	// Go SDK does; botocore leaves it out.
	if signed["content-length"] {
		copyReq.ContentLength = int64(len(body))
	}
	for _, h := range headers {
		if h == "host" || h == "content-length" {
			continue
		}
		v := req.Header.Values(h)
		if len(v) == 0 {
			return "InvalidSignatureException", "the signed header " + h + " is not in the request: " + howTo
		}
		copyReq.Header[textproto.CanonicalMIMEHeaderKey(h)] = v
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: LocalAccessKey, SecretAccessKey: LocalSecretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, copyReq, hex.EncodeToString(sum[:]), s.service, s.region, at); err != nil {
		return "InvalidSignatureException", "the request cannot be signed: " + howTo
	}
	want, ok := parseSigV4(copyReq.Header.Get("Authorization"))
	if !ok || want.signedHeaders != s.signedHeaders || !hmac.Equal([]byte(want.signature), []byte(s.signature)) || want.date != s.date {
		return "InvalidSignatureException", "The request signature we calculated does not match the signature you provided: " + howTo
	}
	return "", ""
}

// MaxSigV4Skew is how far a SigV4 signature's X-Amz-Date may be from the
// clock: AWS refuses a request signed more than 15 minutes before or
// after it, so that a captured request cannot be replayed later.
const MaxSigV4Skew = 15 * time.Minute

// skewed returns the refusal of a request signed at at, when now is more
// than MaxSigV4Skew away: InvalidSignatureException, with the message
// AWS's JSON services (DynamoDB, Lambda, SQS, Scheduler) answer, which
// the SDKs' clock-skew correction recognises.
func skewed(at, now time.Time) (code, message string) {
	const layout = "20060102T150405Z"
	min := int(MaxSigV4Skew / time.Minute)
	switch {
	case at.Before(now.Add(-MaxSigV4Skew)):
		return "InvalidSignatureException", fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - %d min.)", at.UTC().Format(layout), now.Add(-MaxSigV4Skew).UTC().Format(layout), now.UTC().Format(layout), min)
	case at.After(now.Add(MaxSigV4Skew)):
		return "InvalidSignatureException", fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + %d min.)", at.UTC().Format(layout), now.Add(MaxSigV4Skew).UTC().Format(layout), now.UTC().Format(layout), min)
	}
	return "", ""
}
