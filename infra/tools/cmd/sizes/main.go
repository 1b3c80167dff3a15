// Command sizes prints the zipped size of every bootstrap under a sam build
// directory (what Lambda receives), and fails if one reaches the limit.
//
//	go run ./infra/tools/cmd/sizes .aws-sam/build
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/botix/public-api/infra/internal/zipsize"
)

// limit is the target zipped size of one function.
const limit = 12 << 20

func main() {
	dir := ".aws-sam/build"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "bootstrap"))
	sort.Strings(paths)
	if len(paths) == 0 {
		fmt.Fprintln(os.Stderr, "sizes: no bootstrap under", dir)
		os.Exit(1)
	}
	fmt.Printf("| function | bootstrap MB | zipped MB |\n| --- | --- | --- |\n")
	failed := false
	var largest int
	for _, p := range paths {
		raw, zipped, err := zipsize.Of(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sizes:", err)
			os.Exit(1)
		}
		fmt.Printf("| %s | %.1f | %.1f |\n", filepath.Base(filepath.Dir(p)), zipsize.MB(raw), zipsize.MB(zipped))
		largest = max(largest, zipped)
		failed = failed || zipped >= limit
	}
	fmt.Printf("\nlargest zipped function: %.1f MB (target < %.0f MB)\n", zipsize.MB(largest), zipsize.MB(limit))
	if failed {
		os.Exit(1)
	}
}
