package store_test

import (
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
