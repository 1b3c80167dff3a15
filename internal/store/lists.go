package store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

// ContactFilter selects contacts. Every field is a key condition: a tag
// reads the tag's index items, a time range bounds the ULID sort key.
type ContactFilter struct {
	Tag string
	// After and Before bound created_at exclusively; zero means unbounded.
	After, Before time.Time
}

// ContactsQuery is the list query of a project's contacts, newest first.
func ContactsQuery(project string, f ContactFilter) List[domain.Contact] {
	q := Query{PartitionAttr: attrPK, Partition: scoped(project, kindContacts), SortAttr: attrSK}
	if f.Tag != "" {
		q.Partition = contactTagPK(project, f.Tag)
	}
	q.From, q.To = ulidRange(f.After, f.Before)
	return listOf(q, func(it contactItem) domain.Contact { return it.Contact })
}

// ulidRange turns an exclusive (after, before) time range into an
// inclusive ULID sort key range at millisecond precision.
func ulidRange(after, before time.Time) (from, to string) {
	if !after.IsZero() {
		from = ids.LowerBound(after.Truncate(time.Millisecond).Add(time.Millisecond))
	}
	if !before.IsZero() {
		b := before.Truncate(time.Millisecond)
		if b.Equal(before) {
			b = b.Add(-time.Millisecond)
		}
		to = ids.UpperBound(b)
	}
	return from, to
}

// MessageFilter selects messages: ContactID is a key condition (GSI1),
// Status a FilterExpression (statuses change, so they are not keyed).
type MessageFilter struct {
	ContactID string
	Status    string
}

// MessagesQuery is the list query of a project's messages, newest first.
func MessagesQuery(project string, f MessageFilter) List[domain.Message] {
	q := Query{PartitionAttr: attrPK, Partition: scoped(project, kindMessages), SortAttr: attrSK}
	if f.ContactID != "" {
		q = Query{Index: IndexGSI1, PartitionAttr: attrGSI1PK, Partition: contactMessagesPK(project, f.ContactID), SortAttr: attrGSI1SK}
	}
	if f.Status != "" {
		q.Filter = "#status = :status"
		q.Names = map[string]string{"#status": "status"}
		q.Values = map[string]types.AttributeValue{":status": str(f.Status)}
	}
	return listOf(q, func(it messageItem) domain.Message { return it.Message })
}
