package api_test

import (
	"testing"

	"github.com/botix/public-api/infra/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
