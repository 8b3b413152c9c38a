package main

import (
	"errors"
	"io"
	"strings"
)

// readCloser and writeCloser give the standard streams the Close methods
// transports want, without closing the process's own descriptors.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }

// isEOF reports whether err only says the peer hung up.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || strings.Contains(err.Error(), "EOF")
}
