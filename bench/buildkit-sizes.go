// Compressed sizes of image layer tars as BuildKit writes them: Go's compress/gzip at its default level (Docker's
// default layers) and klauspost/compress zstd at BuildKit's default level and at compression-level=19
// (moby/buildkit util/compression). Run by `bun run bench/image.ts --buildkit`, which needs Debian's golang-go and
// golang-github-klauspost-compress-dev: buildkit-sizes.go SPECS FILE..., SPECS a comma-separated list of
// compression[:level] as BuildKit's --output takes them (gzip, zstd, zstd:19; release/image.ts names the published
// ones). Prints one line per file: its size under each spec, in bytes.
package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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

// writer opens the compressor BuildKit uses for a spec (util/compression: gzip.NewWriterLevel; zstd.NewWriter with
// EncoderLevelFromZstd when a level is given).
func writer(spec string) func(io.Writer) (io.WriteCloser, error) {
	kind, lv, hasLevel := strings.Cut(spec, ":")
	level := 0
	if hasLevel {
		n, err := strconv.Atoi(lv)
		if err != nil {
			fmt.Fprintf(os.Stderr, "buildkit-sizes: bad level in %q\n", spec)
			os.Exit(2)
		}
		level = n
	}
	switch kind {
	case "gzip":
		if !hasLevel {
			level = gzip.DefaultCompression
		}
		return func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, level) }
	case "zstd":
		if !hasLevel {
			return func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }
		}
		return func(w io.Writer) (io.WriteCloser, error) {
			return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)))
		}
	}
	fmt.Fprintf(os.Stderr, "buildkit-sizes: unknown compression %q (gzip or zstd)\n", spec)
	os.Exit(2)
	return nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: buildkit-sizes.go SPECS FILE...")
		os.Exit(2)
	}
	specs := strings.Split(os.Args[1], ",")
	for _, file := range os.Args[2:] {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sizes := make([]string, len(specs))
		for i, spec := range specs {
			sizes[i] = strconv.FormatInt(size(data, writer(spec)), 10)
		}
		fmt.Println(strings.Join(sizes, " "))
	}
}
