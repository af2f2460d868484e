//go:build amd64 || arm64

package order

// prefetch asks the processor to bring the two cache lines from p into its
// cache, and returns without waiting for them. A load would do the same
// but hold back every later instruction until it arrives; a prefetch
// instruction does not.
//
//go:noescape
func prefetch(p *byte)
