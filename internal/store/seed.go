package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

// SeedContacts bulk-loads contacts with BatchWriteItem: the same items the
// API writes (contact, phone guard, tag copies) and the counter, but no
// events and no uniqueness check. It exists to load large projects for
// benchmarks and tests quickly; the API never calls it.
func (s *Store) SeedContacts(ctx context.Context, project string, contacts []domain.Contact, workers int) error {
	var reqs []types.WriteRequest
	for _, c := range contacts {
		u, err := ids.Parse(ids.Contact, c.ID)
		if err != nil {
			return err
		}
		items := []any{
			contactItem{PK: scoped(project, kindContacts), SK: u.String(), Entity: "contact", ProjectID: project, Contact: c},
			phoneGuardItem{PK: phonePK(project, c.Phone), SK: "PHONE", Entity: "phone_guard", ContactID: c.ID},
		}
		for _, tag := range c.Tags {
			items = append(items, contactItem{PK: contactTagPK(project, tag), SK: u.String(), Entity: "contact_tag", ProjectID: project, Contact: c})
		}
		for _, it := range items {
			av, err := attributevalue.MarshalMap(it)
			if err != nil {
				return err
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
		}
	}
	if err := s.batchWrite(ctx, reqs, workers); err != nil {
		return err
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Tables.Data),
		Key:                       keyAV(key(scoped(project, kindCounters), "contacts#seed")),
		UpdateExpression:          aws.String("ADD #total :n SET #entity = :entity"),
		ExpressionAttributeNames:  map[string]string{"#total": "total", "#entity": "entity"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": num(int64(len(contacts))), ":entity": str("counter")},
	})
	return classify(err)
}

// batchWrite writes requests awslimits.DynamoDBBatchWriteItems (25, the
// most BatchWriteItem takes) at a time on workers goroutines, re-sending
// unprocessed items.
func (s *Store) batchWrite(ctx context.Context, reqs []types.WriteRequest, workers int) error {
	chunks := make(chan []types.WriteRequest)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for chunk := range chunks {
				for attempt := 0; len(chunk) > 0; attempt++ {
					out, err := s.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.Tables.Data: chunk}})
					if err != nil {
						errs <- classify(err)
						return
					}
					chunk = out.UnprocessedItems[s.Tables.Data]
					if attempt > 20 {
						errs <- fmt.Errorf("store: %d items stay unprocessed", len(chunk))
						return
					}
				}
			}
		}()
	}
	for i := 0; i < len(reqs); i += awslimits.DynamoDBBatchWriteItems {
		select {
		case chunks <- reqs[i:min(i+awslimits.DynamoDBBatchWriteItems, len(reqs))]:
		case err := <-errs:
			close(chunks)
			wg.Wait()
			return err
		}
	}
	close(chunks)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
