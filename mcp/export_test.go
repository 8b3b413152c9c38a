package mcp

import "time"

// SetBackoffForTest shortens the reconnection backoff.
func SetBackoffForTest(lo, hi time.Duration) (restore func()) {
	a, b := minBackoff, maxBackoff
	minBackoff, maxBackoff = lo, hi
	return func() { minBackoff, maxBackoff = a, b }
}
