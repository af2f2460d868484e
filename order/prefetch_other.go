//go:build !amd64 && !arm64

package order

// prefetch is a prefetch hint where the package has the instruction in
// assembly; here it does nothing.
func prefetch(p *byte) {}
