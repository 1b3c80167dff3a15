// Command sizes prints the zipped size of every bootstrap under a sam build
// directory (what Lambda receives), and fails if one reaches the limit.
//
//	go run ./infra/tools/cmd/sizes .aws-sam/build
package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
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
		raw, zipped, err := sizes(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sizes:", err)
			os.Exit(1)
		}
		fmt.Printf("| %s | %.1f | %.1f |\n", filepath.Base(filepath.Dir(p)), mb(raw), mb(zipped))
		largest = max(largest, zipped)
		failed = failed || zipped >= limit
	}
	fmt.Printf("\nlargest zipped function: %.1f MB (target < %.0f MB)\n", mb(largest), mb(limit))
	if failed {
		os.Exit(1)
	}
}

func sizes(path string) (raw, zipped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "bootstrap", Method: zip.Deflate})
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return 0, 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, 0, err
	}
	return int(n), buf.Len(), nil
}

func mb(n int) float64 { return float64(n) / (1 << 20) }
