// Package domain holds the API's resources and their validation rules. It
// knows nothing of HTTP or DynamoDB.
package domain

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/botix/public-api/internal/apierr"
)

// Contact is a person a project talks to.
type Contact struct {
	ID        string   `json:"id" dynamodbav:"id"`
	Phone     string   `json:"phone" dynamodbav:"phone"`
	Name      string   `json:"name" dynamodbav:"name"`
	Email     string   `json:"email,omitempty" dynamodbav:"email,omitempty"`
	Tags      []string `json:"tags" dynamodbav:"tags"`
	CreatedAt string   `json:"created_at" dynamodbav:"created_at"`
}

// Limits of a contact.
const (
	MaxContactTags = 20
	MaxNameLength  = 200
	MaxEmailLength = 254
	MaxTagLength   = 64
)

var (
	e164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
	// TagPattern is the shape of a tag: also a safe sort/partition key part.
	TagPattern = regexp.MustCompile(`^[a-zA-Z0-9_.:-]{1,64}$`)
)

// ContactInput is the body of POST /public/v1/contacts.
type ContactInput struct {
	Phone *string  `json:"phone"`
	Name  *string  `json:"name"`
	Email *string  `json:"email"`
	Tags  []string `json:"tags"`
}

// Validate returns the problems of the input, field by field.
func (in ContactInput) Validate() apierr.Problems {
	p := apierr.Problems{}
	switch {
	case in.Phone == nil:
		p.Add("phone", "is required")
	case !e164.MatchString(*in.Phone):
		p.Add("phone", "must be in E.164 format, e.g. +79990000000")
	}
	switch {
	case in.Name == nil || strings.TrimSpace(*in.Name) == "":
		p.Add("name", "is required")
	case utf8.RuneCountInString(*in.Name) > MaxNameLength:
		p.Add("name", "must be at most 200 characters")
	case HasControl(*in.Name, false):
		p.Add("name", ProblemControl)
	}
	if in.Email != nil {
		// Characters (code points), as the document's maxLength counts them.
		if utf8.RuneCountInString(*in.Email) > MaxEmailLength {
			p.Add("email", "must be at most 254 characters")
		} else if a, err := mail.ParseAddress(*in.Email); err != nil || a.Address != *in.Email {
			p.Add("email", "must be a plain e-mail address such as ivan@example.com")
		}
	}
	ValidateTags(p, "tags", in.Tags)
	return p
}

// ValidateTags checks a tag list: at most MaxContactTags distinct tags of
// TagPattern.
func ValidateTags(p apierr.Problems, field string, tags []string) {
	if len(tags) > MaxContactTags {
		p.Add(field, "at most 20 tags")
		return
	}
	seen := map[string]bool{}
	for _, t := range tags {
		if !TagPattern.MatchString(t) {
			p.Add(field, "each tag is 1-64 characters of letters, digits, '_', '.', ':' or '-'")
			return
		}
		if seen[t] {
			p.Add(field, "tags must be distinct")
			return
		}
		seen[t] = true
	}
}

// NewContact builds the contact of a validated input.
func NewContact(in ContactInput, id, createdAt string) Contact {
	c := Contact{ID: id, Phone: *in.Phone, Name: strings.TrimSpace(*in.Name), Tags: in.Tags, CreatedAt: createdAt}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if in.Email != nil {
		c.Email = *in.Email
	}
	return c
}
