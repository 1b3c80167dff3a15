package delivery

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/store"
)

// RedriveInput is the redrive function's payload; every filter is
// optional.
type RedriveInput struct {
	ProjectID  string `json:"project_id,omitempty"`
	EndpointID string `json:"endpoint_id,omitempty"`
	EventType  string `json:"event_type,omitempty"`
	// Max bounds how many messages are moved (default 1000).
	Max int `json:"max,omitempty"`
}

// RedriveOutput reports what a redrive did.
type RedriveOutput struct {
	// Moved messages went back to the delivery queue: each starts a fresh
	// round of attempts.
	Moved int `json:"moved"`
	// SkippedDelivered were dead letters of deliveries that were delivered
	// meanwhile (a manual retry): deleted, not resent.
	SkippedDelivered int `json:"skipped_delivered"`
	// SkippedFilter did not match the filters and stay in the queue.
	SkippedFilter int `json:"skipped_filter"`
}

// Redriver moves dead letters back to the delivery queue.
type Redriver struct {
	Store         *store.Store
	SQS           *sqs.Client
	QueueURL      string
	DeadLetterURL string
	Log           *slog.Logger
}

// holdFor keeps examined, non-matching messages invisible during a run so
// that each is examined once; they are released at the end.
const holdFor = 5 * time.Minute

// Redrive moves the dead letters that match in to the delivery queue.
func (r *Redriver) Redrive(ctx context.Context, in RedriveInput) (RedriveOutput, error) {
	if in.Max < 0 {
		return RedriveOutput{}, apierr.Problems{"max": "must be positive"}.Err()
	}
	if in.Max == 0 {
		in.Max = 1000
	}
	var out RedriveOutput
	var held []string
	defer func() { r.release(context.WithoutCancel(ctx), held) }()
	for empty := 0; out.Moved < in.Max && empty < 2; {
		res, err := r.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(r.DeadLetterURL), MaxNumberOfMessages: int32(min(10, in.Max-out.Moved)),
			WaitTimeSeconds: 1, VisibilityTimeout: int32(holdFor / time.Second),
		})
		if err != nil {
			return out, err
		}
		if len(res.Messages) == 0 {
			empty++
			continue
		}
		empty = 0
		for _, m := range res.Messages {
			verdict, err := r.one(ctx, in, m)
			if err != nil {
				return out, err
			}
			switch verdict {
			case "moved":
				out.Moved++
			case "delivered":
				out.SkippedDelivered++
			default:
				out.SkippedFilter++
				held = append(held, aws.ToString(m.ReceiptHandle))
			}
		}
	}
	r.Log.InfoContext(ctx, "redrive done", "moved", out.Moved, "skipped_delivered", out.SkippedDelivered, "skipped_filter", out.SkippedFilter)
	return out, nil
}

func (r *Redriver) one(ctx context.Context, in RedriveInput, m sqstypes.Message) (string, error) {
	msg, err := parseMessage(aws.ToString(m.Body))
	if err != nil {
		return "skip", nil // not ours to judge: left for a human
	}
	if (in.ProjectID != "" && msg.ProjectID != in.ProjectID) || (in.EndpointID != "" && msg.EndpointID != in.EndpointID) || (in.EventType != "" && msg.EventType != in.EventType) {
		return "skip", nil
	}
	d, err := r.Store.GetDelivery(ctx, msg.ProjectID, msg.DeliveryID)
	switch {
	case err == nil && d.Status == store.DeliveryDelivered:
		return "delivered", r.remove(ctx, m)
	case err != nil && !store.IsNotFound(err):
		return "", err
	}
	if _, err := r.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.QueueURL), MessageBody: m.Body}); err != nil {
		return "", err
	}
	return "moved", r.remove(ctx, m)
}

func (r *Redriver) remove(ctx context.Context, m sqstypes.Message) error {
	_, err := r.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(r.DeadLetterURL), ReceiptHandle: m.ReceiptHandle})
	return err
}

// release makes held messages visible again at once.
func (r *Redriver) release(ctx context.Context, receipts []string) {
	for _, h := range receipts {
		if _, err := r.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(r.DeadLetterURL), ReceiptHandle: aws.String(h), VisibilityTimeout: 0}); err != nil {
			r.Log.WarnContext(ctx, "a skipped dead letter stays hidden until its visibility timeout", "error", err.Error())
		}
	}
}
