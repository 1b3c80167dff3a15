package local

import (
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

func TestLanesKeepEachKeyInOrderInOneLane(t *testing.T) {
	var recs []events.DynamoDBEventRecord
	for i := range 300 {
		pk := fmt.Sprintf("P#prj_%d#EVT", i%30)
		recs = append(recs, events.DynamoDBEventRecord{Change: events.DynamoDBStreamRecord{
			SequenceNumber: fmt.Sprint(i), Keys: map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute(pk)},
		}})
	}
	for _, n := range []int{1, 10} {
		ls := lanes(recs, n)
		if len(ls) > n || (n == 10 && len(ls) < 5) {
			t.Fatalf("factor %d: %d lanes for 30 keys", n, len(ls))
		}
		laneOf := map[string]int{}
		total := 0
		for i, l := range ls {
			total += len(l)
			last := -1
			for _, r := range l {
				pk := r.Change.Keys["pk"].String()
				if j, ok := laneOf[pk]; ok && j != i {
					t.Fatalf("factor %d: key %s in lanes %d and %d", n, pk, j, i)
				}
				laneOf[pk] = i
				var seq int
				fmt.Sscan(r.Change.SequenceNumber, &seq)
				if seq < last {
					t.Fatalf("factor %d: lane %d out of stream order at %d", n, i, seq)
				}
				last = seq
			}
		}
		if total != len(recs) {
			t.Fatalf("factor %d: %d records in the lanes, want %d", n, total, len(recs))
		}
	}
}
