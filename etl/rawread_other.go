//go:build !(linux && (amd64 || arm64))

package etl

import "os"

func newRawFile(f *os.File) readerAtCloser { return f }
