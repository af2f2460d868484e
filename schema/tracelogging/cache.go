package tracelogging

import (
	"encoding/binary"
	"sync"

	"github.com/etlkit/etlkit/payload"
)

// Default bounds of a Cache made with NewCache(0, 0).
const (
	DefaultCacheEntries = 4096
	DefaultCacheBytes   = 16 << 20
)

// Cache holds parsed schemas keyed by the bytes of their metadata blob.
// TraceLogging events have no usable event id (many providers write 0 for
// every event), so the blob itself is the only reliable key. Failures are
// cached too, so a bad blob repeated on every event is parsed once.
//
// The zero Cache is ready to use with the default bounds. A Cache is safe
// for concurrent use. It holds at most a set number of
// entries and key bytes; when full it drops an arbitrary entry, which for
// the few hundred distinct events of a real trace never happens.
type Cache struct {
	mu         sync.Mutex
	m          map[string]cacheEntry
	maxEntries int
	maxBytes   int
	bytes      int
	hits       uint64
	misses     uint64
}

type cacheEntry struct {
	s   *payload.Schema
	err error
}

// NewCache returns a cache bounded to maxEntries schemas and maxBytes of
// metadata; zero or negative bounds take the defaults.
func NewCache(maxEntries, maxBytes int) *Cache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &Cache{m: make(map[string]cacheEntry), maxEntries: maxEntries, maxBytes: maxBytes}
}

// Schema returns the parsed schema of an EVENT_SCHEMA_TL blob, parsing it
// on first sight. A hit does not allocate.
func (c *Cache) Schema(b []byte) (*payload.Schema, error) {
	// The key is the blob up to its own size: items are padded to 8 bytes
	// and the padding is not part of the schema.
	if len(b) >= 2 {
		if n := int(binary.LittleEndian.Uint16(b)); n >= 2 && n <= len(b) {
			b = b[:n]
		}
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string]cacheEntry)
		c.maxEntries, c.maxBytes = DefaultCacheEntries, DefaultCacheBytes
	}
	if e, ok := c.m[string(b)]; ok {
		c.hits++
		c.mu.Unlock()
		return e.s, e.err
	}
	c.misses++
	c.mu.Unlock()

	s, err := ParseSchema(b)

	c.mu.Lock()
	defer c.mu.Unlock()
	if len(b) > c.maxBytes {
		return s, err
	}
	for len(c.m) > 0 && (len(c.m) >= c.maxEntries || c.bytes+len(b) > c.maxBytes) {
		for k := range c.m {
			c.bytes -= len(k)
			delete(c.m, k)
			break
		}
	}
	if _, ok := c.m[string(b)]; !ok {
		c.m[string(b)] = cacheEntry{s, err}
		c.bytes += len(b)
	}
	return s, err
}

// Len is the number of cached schemas.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Stats returns the number of lookups that hit and missed.
func (c *Cache) Stats() (hits, misses uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}
