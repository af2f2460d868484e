// Package payload is the one field model and payload decoder of etlkit.
//
// Every source of event schemas describes a payload in the same terms, the
// ones TDH uses: fields with an in-type (how the value is stored), an
// out-type (how it is shown), an element count and a length that are
// constants or the value of an earlier field, structs, and value or bit
// maps. TraceLogging metadata, the kernel's MOF classes, instrumentation
// manifests, TDH TRACE_EVENT_INFO blobs and EventSource manifests are all
// turned into a Schema of Fields by their own front ends; Schema.Decode then
// reads any payload the same way, and a Value renders the same way in every
// output format.
//
// The package imports nothing of etlkit but buffer (for its error
// sentinels), so that record and every schema source can build on it.
package payload

import "fmt"

// InType is how a field's value is stored in the payload: the TDH_INTYPE
// numbering of tdh.h, with 24 (RESERVED24 there) used for structs as
// TraceLogging does.
type InType uint16

const (
	InNull              InType = 0
	InUnicodeString     InType = 1 // UTF-16LE, NUL-terminated unless a length is given
	InAnsiString        InType = 2 // 8-bit, NUL-terminated unless a length is given
	InInt8              InType = 3
	InUInt8             InType = 4
	InInt16             InType = 5
	InUInt16            InType = 6
	InInt32             InType = 7
	InUInt32            InType = 8
	InInt64             InType = 9
	InUInt64            InType = 10
	InFloat             InType = 11
	InDouble            InType = 12
	InBoolean           InType = 13 // a 4-byte Win32 BOOL
	InBinary            InType = 14 // length from the field, else 16 bytes for an IPv6 out-type
	InGUID              InType = 15
	InPointer           InType = 16 // the record's pointer size
	InFileTime          InType = 17
	InSystemTime        InType = 18
	InSID               InType = 19 // 8 + 4·n bytes
	InHexInt32          InType = 20
	InHexInt64          InType = 21
	InCountedString     InType = 22 // u16 byte count, then UTF-16LE
	InCountedAnsiString InType = 23 // u16 byte count, then 8-bit characters
	InStruct            InType = 24 // the members, packed
	InCountedBinary     InType = 25 // u16 byte count, then bytes

	// The TDH in-types of MOF (WBEM) events.
	InWBEMCountedString           InType = 300 // as InCountedString
	InWBEMCountedAnsiString       InType = 301 // as InCountedAnsiString
	InReversedCountedString       InType = 302 // big-endian u16 byte count, then UTF-16LE
	InReversedCountedAnsiString   InType = 303 // big-endian u16 byte count, then 8-bit characters
	InNonNullTerminatedString     InType = 304 // UTF-16LE to the end of the payload
	InNonNullTerminatedAnsiString InType = 305 // 8-bit characters to the end of the payload
	InUnicodeChar                 InType = 306 // one UTF-16 code unit
	InAnsiChar                    InType = 307 // one 8-bit character
	InSizeT                       InType = 308 // the record's pointer size
	InHexDump                     InType = 309 // u32 byte count, then bytes
	InWBEMSID                     InType = 310 // 4 zero bytes, or a TOKEN_USER (two pointers) then a SID
)

var inTypeNames = [...]string{
	"Null", "UnicodeString", "AnsiString", "Int8", "UInt8", "Int16", "UInt16",
	"Int32", "UInt32", "Int64", "UInt64", "Float", "Double", "Boolean", "Binary",
	"GUID", "Pointer", "FileTime", "SystemTime", "SID", "HexInt32", "HexInt64",
	"CountedString", "CountedAnsiString", "Struct", "CountedBinary",
}

var wbemInTypeNames = [...]string{
	"WBEMCountedString", "WBEMCountedAnsiString", "ReversedCountedString",
	"ReversedCountedAnsiString", "NonNullTerminatedString", "NonNullTerminatedAnsiString",
	"UnicodeChar", "AnsiChar", "SizeT", "HexDump", "WBEMSID",
}

func (t InType) String() string {
	switch {
	case int(t) < len(inTypeNames):
		return inTypeNames[t]
	case t >= InWBEMCountedString && int(t-InWBEMCountedString) < len(wbemInTypeNames):
		return wbemInTypeNames[t-InWBEMCountedString]
	}
	return fmt.Sprintf("InType(%d)", uint16(t))
}

// CanCount reports whether a field of type t, when scalar, can give
// another field its length or element count (Field.LengthField,
// Field.CountField): the integer types, pointers and sizes.
func (t InType) CanCount() bool {
	switch t {
	case InInt8, InUInt8, InInt16, InUInt16, InInt32, InUInt32, InInt64, InUInt64,
		InHexInt32, InHexInt64, InPointer, InSizeT:
		return true
	}
	return false
}

// Valid reports whether the decoder knows the in-type.
func (t InType) Valid() bool {
	return t != InNull && (int(t) < len(inTypeNames) ||
		t >= InWBEMCountedString && int(t-InWBEMCountedString) < len(wbemInTypeNames))
}

// OutType is how a field's value is shown: the TDH_OUTTYPE numbering of
// tdh.h. OutDefault leaves it to the in-type.
type OutType uint16

const (
	OutDefault                    OutType = 0
	OutString                     OutType = 1 // xs:string: on Int8/UInt8/UInt16, a character
	OutDateTime                   OutType = 2 // xs:dateTime: on a 64-bit integer, a FILETIME
	OutByte                       OutType = 3
	OutUnsignedByte               OutType = 4
	OutShort                      OutType = 5
	OutUnsignedShort              OutType = 6
	OutInt                        OutType = 7
	OutUnsignedInt                OutType = 8
	OutLong                       OutType = 9
	OutUnsignedLong               OutType = 10
	OutFloat                      OutType = 11
	OutDouble                     OutType = 12
	OutBoolean                    OutType = 13
	OutGUID                       OutType = 14
	OutHexBinary                  OutType = 15
	OutHexInt8                    OutType = 16
	OutHexInt16                   OutType = 17
	OutHexInt32                   OutType = 18
	OutHexInt64                   OutType = 19
	OutPID                        OutType = 20
	OutTID                        OutType = 21
	OutPort                       OutType = 22 // a UInt16 in network byte order
	OutIPv4                       OutType = 23 // a UInt32 holding the address in network order
	OutIPv6                       OutType = 24
	OutSocketAddress              OutType = 25
	OutCIMDateTime                OutType = 26
	OutETWTime                    OutType = 27
	OutXML                        OutType = 28
	OutErrorCode                  OutType = 29
	OutWin32Error                 OutType = 30
	OutNTStatus                   OutType = 31
	OutHResult                    OutType = 32
	OutDateTimeCultureInsensitive OutType = 33
	OutJSON                       OutType = 34
	OutUTF8                       OutType = 35
	OutPKCS7WithTypeInfo          OutType = 36
	OutCodePointer                OutType = 37
	OutDateTimeUTC                OutType = 38
	OutReducedString              OutType = 300
	OutNoPrint                    OutType = 301
)

var outTypeNames = [...]string{
	"Default", "String", "DateTime", "Byte", "UnsignedByte", "Short", "UnsignedShort",
	"Int", "UnsignedInt", "Long", "UnsignedLong", "Float", "Double", "Boolean", "GUID",
	"HexBinary", "HexInt8", "HexInt16", "HexInt32", "HexInt64", "PID", "TID", "Port",
	"IPv4", "IPv6", "SocketAddress", "CIMDateTime", "ETWTime", "Xml", "ErrorCode",
	"Win32Error", "NTStatus", "HResult", "DateTimeCultureInsensitive", "Json", "Utf8",
	"Pkcs7WithTypeInfo", "CodePointer", "DateTimeUtc",
}

func (t OutType) String() string {
	switch {
	case int(t) < len(outTypeNames):
		return outTypeNames[t]
	case t == OutReducedString:
		return "ReducedString"
	case t == OutNoPrint:
		return "NoPrint"
	}
	return fmt.Sprintf("OutType(%d)", uint16(t))
}

// isHex reports whether the out-type shows an integer in hex.
func (t OutType) isHex() bool {
	switch t {
	case OutHexInt8, OutHexInt16, OutHexInt32, OutHexInt64, OutCodePointer:
		return true
	}
	return false
}

// isDateTime reports whether the out-type shows a 64-bit integer as a
// FILETIME.
func (t OutType) isDateTime() bool {
	switch t {
	case OutDateTime, OutDateTimeCultureInsensitive, OutDateTimeUTC:
		return true
	}
	return false
}
