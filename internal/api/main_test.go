package api_test

import (
	"testing"

	"github.com/botix/public-api/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
