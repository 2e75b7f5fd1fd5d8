// Compressed sizes of image layer tars as BuildKit writes them: Go's compress/gzip at its default level (Docker's
// default layers) and klauspost/compress zstd at BuildKit's default level and at compression-level=19
// (moby/buildkit util/compression). Run by `bun run bench/image.ts --buildkit`, which needs Debian's golang-go and
// golang-github-klauspost-compress-dev. Prints one line per file: gzip, zstd default, zstd level 19, in bytes.
package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func size(data []byte, open func(io.Writer) (io.WriteCloser, error)) int64 {
	c := &counter{}
	w, err := open(c)
	if err != nil {
		panic(err)
	}
	if _, err := w.Write(data); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return c.n
}

func main() {
	for _, file := range os.Args[1:] {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		gz := size(data, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.DefaultCompression) })
		zd := size(data, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
		z19 := size(data, func(w io.Writer) (io.WriteCloser, error) {
			return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(19)))
		})
		fmt.Println(gz, zd, z19)
	}
}
