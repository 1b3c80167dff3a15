package awsemu_test

import (
	"testing"

	"github.com/botix/public-api/infra/run/awsemu"
)

// Digests of message attributes published by other SQS implementations'
// tests (an AWS documentation example among them): clients compare
// MD5OfMessageAttributes with their own, so ours must be SQS's.
func TestMessageAttributesDigest(t *testing.T) {
	s := awsemu.NewSQS("http://local", region, account)
	defer s.Close()
	q, err := s.CreateQueue("digests", nil)
	if err != nil {
		t.Fatal(err)
	}
	str := func(typ, v string) awsemu.MessageAttribute {
		return awsemu.MessageAttribute{DataType: typ, StringValue: v}
	}
	cases := []struct {
		name  string
		attrs map[string]awsemu.MessageAttribute
		want  string
	}{
		{"one string", map[string]awsemu.MessageAttribute{"SellerName": str("String", "Example Store")}, "cd28f3b68aeee4b2eac9c66f2f694b58"},
		{"a number", map[string]awsemu.MessageAttribute{"timestamp": str("Number", "1493147359900")}, "235c5c510d26fb653d073faed50ae77c"},
		{"sorted by name", map[string]awsemu.MessageAttribute{"ordinal": str("Number", "1"), "category": str("String", "test")}, "d21ae90c49061e927f57df5f5d72be1f"},
		{"none", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sent, err := q.Send("body", awsemu.SendOptions{Attributes: tc.attrs})
			if err != nil {
				t.Fatal(err)
			}
			if sent.MD5OfAttrs != tc.want {
				t.Errorf("MD5OfMessageAttributes %q, want %q", sent.MD5OfAttrs, tc.want)
			}
		})
	}
}
