package record

// TraitsCacheEntries is the most blobs a TraitsCache keeps.
const TraitsCacheEntries = traitsCacheEntries

// TraitsCacheLen is the number of blobs c holds.
func TraitsCacheLen(c *TraitsCache) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
