// Package providers names well-known ETW providers by GUID, so that a
// record prints its provider's name even when no schema of its events is
// known.
//
// The table is generated from a list of the providers a Windows 10 machine
// registers, by internal/cmd/genproviders.
package providers

//go:generate go run ../../internal/cmd/genproviders -o table.go ../../../shared/manifests/providers.tsv

import (
	"bytes"

	"github.com/google/uuid"
)

type entry struct {
	id   uuid.UUID
	name string
}

// Name returns the name of a well-known provider.
func Name(id uuid.UUID) (string, bool) {
	lo, hi := 0, len(table)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(table[m].id[:], id[:]); {
		case c == 0:
			return table[m].name, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return "", false
}

// Each calls fn with every provider of the table, in GUID order.
func Each(fn func(id uuid.UUID, name string)) {
	for i := range table {
		fn(table[i].id, table[i].name)
	}
}

// Len is the number of providers the table names.
func Len() int { return len(table) }
