//go:build !unix

package workspace

// oNoFollow is not available here; ReadRaw follows a final symlink.
const oNoFollow = 0

// oNonBlock is not available here.
const oNonBlock = 0
