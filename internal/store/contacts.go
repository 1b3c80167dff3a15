package store

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

// CounterShards is the number of items the per-project contact counter is
// spread over, so that concurrent creates rarely contend for one item.
const CounterShards = 16

// ErrContactExists is reported when a project already has a contact with
// the phone being created.
var ErrContactExists = apierr.New(apierr.ContactAlreadyExists, "a contact with this phone already exists in the project")

type contactItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	ProjectID string `dynamodbav:"project_id"`
	domain.Contact
}

type phoneGuardItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	ContactID string `dynamodbav:"contact_id"`
}

// AddContact adds the writes that create contact c to the plan: the contact,
// its phone uniqueness guard (ErrContactExists when taken — DynamoDB decides,
// not a read-then-write), one index item per tag, and the counter increment.
func (s *Store) AddContact(p *Plan, project string, c domain.Contact) error {
	u, err := ids.Parse(ids.Contact, c.ID)
	if err != nil {
		return err
	}
	w, err := put(s.Tables.Data, contactItem{PK: scoped(project, kindContacts), SK: u.String(), Entity: "contact", ProjectID: project, Contact: c}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	w, err = put(s.Tables.Data, phoneGuardItem{PK: phonePK(project, c.Phone), SK: "PHONE", Entity: "phone_guard", ContactID: c.ID}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, ErrContactExists)
	for _, tag := range c.Tags {
		w, err := put(s.Tables.Data, contactItem{PK: contactTagPK(project, tag), SK: u.String(), Entity: "contact_tag", ProjectID: project, Contact: c}, "")
		if err != nil {
			return err
		}
		p.Add(w, nil)
	}
	p.Add(types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(s.Tables.Data),
		Key:                       keyAV(key(scoped(project, kindCounters), fmt.Sprintf("contacts#%02d", rand.IntN(CounterShards)))),
		UpdateExpression:          aws.String("ADD #total :one SET #entity = :entity"),
		ExpressionAttributeNames:  map[string]string{"#total": "total", "#entity": "entity"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}, ":entity": &types.AttributeValueMemberS{Value: "counter"}},
	}}, nil)
	return nil
}

// GetContact returns a contact of project, or ErrNotFound (also for another
// project's contact or a malformed id).
func (s *Store) GetContact(ctx context.Context, project, id string) (domain.Contact, error) {
	u, err := ids.Parse(ids.Contact, id)
	if err != nil {
		return domain.Contact{}, ErrNotFound
	}
	var it contactItem
	if err := s.get(ctx, s.Tables.Data, key(scoped(project, kindContacts), u.String()), &it); err != nil {
		return domain.Contact{}, err
	}
	return it.Contact, nil
}

// ContactExistsCheck returns a transaction condition that the contact
// exists in project; notFound is reported when it does not.
func (s *Store) ContactExistsCheck(p *Plan, project, id string, notFound error) error {
	u, err := ids.Parse(ids.Contact, id)
	if err != nil {
		return notFound
	}
	p.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:           aws.String(s.Tables.Data),
		Key:                 keyAV(key(scoped(project, kindContacts), u.String())),
		ConditionExpression: aws.String("attribute_exists(pk)"),
	}}, notFound)
	return nil
}

// CountContacts returns the exact number of contacts of project by summing
// the counter shards: one Query of at most CounterShards small items,
// whatever the number of contacts.
func (s *Store) CountContacts(ctx context.Context, project string) (int64, error) {
	out, err := s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(s.Tables.Data),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: scoped(project, kindCounters)}, ":prefix": &types.AttributeValueMemberS{Value: "contacts#"},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, classify(err)
	}
	var total int64
	for _, it := range out.Items {
		if n, ok := it["total"].(*types.AttributeValueMemberN); ok {
			var v int64
			if _, err := fmt.Sscan(n.Value, &v); err != nil {
				return 0, err
			}
			total += v
		}
	}
	return total, nil
}
