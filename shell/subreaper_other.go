//go:build !linux

package shell

import "errors"

// EnableSubreaper is only available on Linux.
func EnableSubreaper(enabled bool) error {
	return errors.New("subreaper: only on Linux")
}
