package buffer

// HeadersServed is how many headers the walk has taken from the batches
// ReadHeadersAhead reads, or -1 when it reads none.
func HeadersServed(w *Walker) int {
	if w.ahead == nil {
		return -1
	}
	return w.ahead.served
}
