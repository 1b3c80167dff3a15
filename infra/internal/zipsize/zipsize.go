// Package zipsize measures a Lambda bootstrap as Lambda receives it: its
// size, and the size of the zip archive that carries it (what a deploy
// uploads and a cold start loads).
package zipsize

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
)

// Of returns the size of the file at path and of a zip archive holding it
// as bootstrap, deflated.
func Of(path string) (raw, zipped int, err error) {
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

// MB is n bytes in mebibytes.
func MB(n int) float64 { return float64(n) / (1 << 20) }
