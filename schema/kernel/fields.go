package kernel

import "github.com/etlkit/etlkit/payload"

// Field constructors for the class tables, named for the MOF type and
// qualifiers they stand for (kernel-events.md §2.2).

func u8(name string) payload.Field  { return payload.Field{Name: name, InType: payload.InUInt8} }
func i8(name string) payload.Field  { return payload.Field{Name: name, InType: payload.InInt8} }
func u16(name string) payload.Field { return payload.Field{Name: name, InType: payload.InUInt16} }
func i16(name string) payload.Field { return payload.Field{Name: name, InType: payload.InInt16} }
func u32(name string) payload.Field { return payload.Field{Name: name, InType: payload.InUInt32} }
func i32(name string) payload.Field { return payload.Field{Name: name, InType: payload.InInt32} }
func u64(name string) payload.Field { return payload.Field{Name: name, InType: payload.InUInt64} }
func i64(name string) payload.Field { return payload.Field{Name: name, InType: payload.InInt64} }

// x32 and x64 are integers shown in hex (format("x")).
func x32(name string) payload.Field { return payload.Field{Name: name, InType: payload.InHexInt32} }
func x64(name string) payload.Field { return payload.Field{Name: name, InType: payload.InHexInt64} }

// ptr is a pointer-sized integer (the pointer or PointerType qualifier),
// shown in hex; size a pointer-sized count (extension("SizeT")), shown in
// decimal.
func ptr(name string) payload.Field { return payload.Field{Name: name, InType: payload.InPointer} }
func size(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InSizeT, OutType: payload.OutUnsignedLong}
}

// boolean is the kernel's 1-byte boolean; bool32 a 4-byte BOOL.
func boolean(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InUInt8, OutType: payload.OutBoolean}
}
func bool32(name string) payload.Field { return payload.Field{Name: name, InType: payload.InBoolean} }

// wmiTime is a 64-bit timestamp in the session clock (extension("WmiTime")).
func wmiTime(name string) payload.Field { return payload.Field{Name: name, InType: payload.InUInt64} }

func guid(name string) payload.Field { return payload.Field{Name: name, InType: payload.InGUID} }

// sid is a SID after its TOKEN_USER, or 4 zero bytes (extension("Sid")).
func sid(name string) payload.Field { return payload.Field{Name: name, InType: payload.InWBEMSID} }

// astr is a NUL-terminated 8-bit string, wstr a NUL-terminated UTF-16 one.
func astr(name string) payload.Field { return payload.Field{Name: name, InType: payload.InAnsiString} }
func wstr(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InUnicodeString}
}

// wchars is a fixed char16 array holding text up to its first NUL
// (char16 X[n] with format("s")).
func wchars(name string, n uint16) payload.Field {
	return payload.Field{Name: name, InType: payload.InUnicodeString, Length: n, FixedLength: true}
}

// ipv4 is an IPv4 address stored in network order (extension("IPAddr"));
// ipv6 an IN6_ADDR (extension("IPAddrV6")); port a big-endian u16
// (extension("Port")).
func ipv4(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InUInt32, OutType: payload.OutIPv4}
}
func ipv6(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InBinary, OutType: payload.OutIPv6}
}
func port(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InUInt16, OutType: payload.OutPort}
}

// Modifiers.

// hex shows an integer field in hex.
func hex(f payload.Field) payload.Field {
	switch f.InType {
	case payload.InUInt8, payload.InInt8:
		f.OutType = payload.OutHexInt8
	case payload.InUInt16, payload.InInt16:
		f.OutType = payload.OutHexInt16
	case payload.InUInt32, payload.InInt32:
		f.OutType = payload.OutHexInt32
	default:
		f.OutType = payload.OutHexInt64
	}
	return f
}

// optional marks a field a later build added at the end of its class: a
// payload that ends before it still decodes.
func optional(f payload.Field) payload.Field { f.Optional = true; return f }

// mapped gives an integer field a value or bit map.
func mapped(f payload.Field, m *payload.Map) payload.Field { f.Map = m; return f }

// array makes f a fixed array of n elements; counted an array whose count
// is the earlier field count; toEnd an array that fills the rest of the
// payload.
func array(f payload.Field, n uint16) payload.Field {
	f.Arity, f.Count = payload.FixedCount, n
	return f
}
func counted(f payload.Field, count string) payload.Field {
	f.Arity, f.CountField = payload.CountFromField, count
	return f
}
func toEnd(f payload.Field) payload.Field { f.Arity = payload.CountToEnd; return f }

// fields is a shorthand for a field list.
func fields(fs ...payload.Field) []payload.Field { return fs }

// bits and values build maps.
func bits(name string, entries ...payload.MapEntry) *payload.Map {
	return payload.NewMap(name, true, entries)
}
func values(name string, entries ...payload.MapEntry) *payload.Map {
	return payload.NewMap(name, false, entries)
}

// entry is one map entry.
func entry(v uint64, name string) payload.MapEntry { return payload.MapEntry{Value: v, Name: name} }
