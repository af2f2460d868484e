package buffer

// HeadersServed is how many headers the walk has taken from the reader
// ReadHeadersAhead started, or -1 when none is running.
func HeadersServed(w *Walker) int64 {
	if w.ahead == nil {
		return -1
	}
	return w.ahead.served.Load()
}
