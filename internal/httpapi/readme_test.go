package httpapi

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/botix/public-api/internal/apierr"
)

// TestReadmeListsEveryErrorCode keeps the README's public table of error
// codes equal to the code's table.
func TestReadmeListsEveryErrorCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| (\\d{3}) \\|")
	documented := map[apierr.Code]int{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		s, _ := strconv.Atoi(m[2])
		documented[apierr.Code(m[1])] = s
	}
	for code, status := range Codes() {
		if got, ok := documented[code]; !ok {
			t.Errorf("README does not list %s", code)
		} else if got != status {
			t.Errorf("README says %s is %d, code says %d", code, got, status)
		}
	}
	for code := range documented {
		if _, ok := Codes()[code]; !ok {
			t.Errorf("README lists %s, which the code does not have", code)
		}
	}
}
