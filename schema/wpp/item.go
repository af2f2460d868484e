package wpp

import "strings"

// ItemType is the type of one WPP argument, as a TMF argument line names
// it (ItemLong, ItemNTSTATUS, ItemListByte(…)). The type, not the C type
// of the traced variable, fixes how many bytes the argument takes in the
// record: WPP casts every argument to the type of its format conversion.
type ItemType uint8

const (
	// ItemUnknown is a type this package does not know: a project's own
	// DEFINE_CPLX_TYPE, say. Its size is unknown, so decoding stops there.
	ItemUnknown    ItemType = iota
	ItemChar                // 1 byte
	ItemUChar               // 1 byte
	ItemShort               // 2 bytes
	ItemLong                // 4 bytes; signed or not by the conversion
	ItemLongLong            // 8 bytes, signed
	ItemULongLong           // 8 bytes, unsigned
	ItemLongLongX           // 8 bytes, %I64x
	ItemLongLongXX          // 8 bytes, %I64X
	ItemLongLongO           // 8 bytes, %I64o
	ItemDouble              // 8 bytes, IEEE-754 binary64
	ItemPtr                 // the provider's pointer size
	ItemGuid                // 16 bytes
	ItemCLSID               // 16 bytes
	ItemLIBID               // 16 bytes
	ItemIID                 // 16 bytes
	ItemString              // 8-bit characters and a NUL
	ItemRString             // as ItemString
	ItemWString             // UTF-16LE and a NUL code unit
	ItemRWString            // as ItemWString
	ItemPString             // u16 byte count, then 8-bit characters (ANSI_STRING)
	ItemPWString            // u16 byte count, then UTF-16LE (UNICODE_STRING)
	ItemSid                 // a SID (8 + 4·n bytes), or "NULL\0"
	ItemHexDump             // u16 byte count, then bytes
	ItemIPV6Addr            // 16 bytes
	ItemChar4               // 4 characters
	ItemIPAddr              // 4 bytes, network order
	ItemPort                // 2 bytes, network order
	ItemNTSTATUS            // 4 bytes
	ItemWINERROR            // 4 bytes
	ItemHRESULT             // 4 bytes
	ItemNDISStatus          // 4 bytes (ItemNDIS_STATUS)
	ItemNDISOid             // 4 bytes (ItemNDIS_OID)
	ItemTimestamp           // 8 bytes, a FILETIME
	ItemWaitTime            // 8 bytes, a due time: absolute FILETIME, or relative when negative
	ItemTimeDelta           // 8 bytes, milliseconds
	ItemListByte            // 1 byte, an index into the labels
	ItemListShort           // 2 bytes, an index into the labels
	ItemListLong            // 4 bytes, an index into the labels
	ItemSetByte             // 1 byte, label i names bit i
	ItemSetShort            // 2 bytes, label i names bit i
	ItemSetLong             // 4 bytes, label i names bit i
	ItemEnum                // 4 bytes, a C enum whose names only the PDB's types hold
	ItemFlagsEnum           // 4 bytes, as ItemEnum, a flags enum
	itemTypes
)

// itemInfo is what the table says of one item type: the name a TMF gives
// it and its size in bytes (0: variable, -1: the pointer size).
type itemInfo struct {
	name string
	size int8
}

var items = [itemTypes]itemInfo{
	ItemUnknown:    {"", 0},
	ItemChar:       {"ItemChar", 1},
	ItemUChar:      {"ItemUChar", 1},
	ItemShort:      {"ItemShort", 2},
	ItemLong:       {"ItemLong", 4},
	ItemLongLong:   {"ItemLongLong", 8},
	ItemULongLong:  {"ItemULongLong", 8},
	ItemLongLongX:  {"ItemLongLongX", 8},
	ItemLongLongXX: {"ItemLongLongXX", 8},
	ItemLongLongO:  {"ItemLongLongO", 8},
	ItemDouble:     {"ItemDouble", 8},
	ItemPtr:        {"ItemPtr", -1},
	ItemGuid:       {"ItemGuid", 16},
	ItemCLSID:      {"ItemCLSID", 16},
	ItemLIBID:      {"ItemLIBID", 16},
	ItemIID:        {"ItemIID", 16},
	ItemString:     {"ItemString", 0},
	ItemRString:    {"ItemRString", 0},
	ItemWString:    {"ItemWString", 0},
	ItemRWString:   {"ItemRWString", 0},
	ItemPString:    {"ItemPString", 0},
	ItemPWString:   {"ItemPWString", 0},
	ItemSid:        {"ItemSid", 0},
	ItemHexDump:    {"ItemHexDump", 0},
	ItemIPV6Addr:   {"ItemIPV6Addr", 16},
	ItemChar4:      {"ItemChar4", 4},
	ItemIPAddr:     {"ItemIPAddr", 4},
	ItemPort:       {"ItemPort", 2},
	ItemNTSTATUS:   {"ItemNTSTATUS", 4},
	ItemWINERROR:   {"ItemWINERROR", 4},
	ItemHRESULT:    {"ItemHRESULT", 4},
	ItemNDISStatus: {"ItemNDIS_STATUS", 4},
	ItemNDISOid:    {"ItemNDIS_OID", 4},
	ItemTimestamp:  {"ItemTimestamp", 8},
	ItemWaitTime:   {"ItemWaitTime", 8},
	ItemTimeDelta:  {"ItemTimeDelta", 8},
	ItemListByte:   {"ItemListByte", 1},
	ItemListShort:  {"ItemListShort", 2},
	ItemListLong:   {"ItemListLong", 4},
	ItemSetByte:    {"ItemSetByte", 1},
	ItemSetShort:   {"ItemSetShort", 2},
	ItemSetLong:    {"ItemSetLong", 4},
	ItemEnum:       {"ItemEnum", 4},
	ItemFlagsEnum:  {"ItemFlagsEnum", 4},
}

// itemByName finds item types by their lower-case names: projects spell
// some of them differently (ItemHexDump, ItemHEXDump).
var itemByName = func() map[string]ItemType {
	m := make(map[string]ItemType, len(items))
	for t := ItemType(1); t < itemTypes; t++ {
		m[strings.ToLower(items[t].name)] = t
	}
	return m
}()

// LookupItemType returns the item type of a TMF type name (without any
// parenthesised list), compared without regard to case; ItemUnknown when
// the name is none of the table's.
func LookupItemType(name string) ItemType {
	return itemByName[strings.ToLower(name)]
}

// String is the name a TMF gives the type; "ItemUnknown" for ItemUnknown.
func (t ItemType) String() string {
	if t == ItemUnknown || t >= itemTypes {
		return "ItemUnknown"
	}
	return items[t].name
}

// Size is the number of bytes a value of the type takes with the given
// pointer size, and false for types of variable size (strings, SIDs, hex
// dumps) and unknown ones.
func (t ItemType) Size(pointerSize int) (int, bool) {
	if t >= itemTypes {
		return 0, false
	}
	switch s := items[t].size; {
	case s > 0:
		return int(s), true
	case s < 0:
		return pointerSize, pointerSize == 4 || pointerSize == 8
	}
	return 0, false
}

// isList reports whether the type indexes its labels; isSet whether its
// labels name bits.
func (t ItemType) isList() bool { return t >= ItemListByte && t <= ItemListLong }
func (t ItemType) isSet() bool  { return t >= ItemSetByte && t <= ItemSetLong }

// takesList reports whether the type carries a parenthesised list in its
// TMF name: labels, or for the enum types the C enum's name.
func (t ItemType) takesList() bool {
	return t.isList() || t.isSet() || t == ItemEnum || t == ItemFlagsEnum
}

// setSeparator joins the names of an ItemSet value's bits. How tracefmt
// joins them is not documented; "|" reads as the C expression would.
const setSeparator = "|"
