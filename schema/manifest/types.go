package manifest

import "github.com/etlkit/etlkit/payload"

// inTypes maps the local part of a manifest in-type name (win:UInt32 →
// "UInt32") to its TDH number. The names are those of the EventManifest
// schema's InputType; the SDK's mc accepts nothing else.
var inTypes = map[string]payload.InType{
	"UnicodeString":        payload.InUnicodeString,
	"AnsiString":           payload.InAnsiString,
	"Int8":                 payload.InInt8,
	"UInt8":                payload.InUInt8,
	"Int16":                payload.InInt16,
	"UInt16":               payload.InUInt16,
	"Int32":                payload.InInt32,
	"UInt32":               payload.InUInt32,
	"Int64":                payload.InInt64,
	"UInt64":               payload.InUInt64,
	"Float":                payload.InFloat,
	"Double":               payload.InDouble,
	"Boolean":              payload.InBoolean,
	"Binary":               payload.InBinary,
	"GUID":                 payload.InGUID,
	"Pointer":              payload.InPointer,
	"FILETIME":             payload.InFileTime,
	"SYSTEMTIME":           payload.InSystemTime,
	"SID":                  payload.InSID,
	"HexInt32":             payload.InHexInt32,
	"HexInt64":             payload.InHexInt64,
	"CountedUnicodeString": payload.InCountedString,
	"CountedAnsiString":    payload.InCountedAnsiString,
	"CountedBinary":        payload.InCountedBinary,
}

// outTypes maps the local part of a manifest out-type name (xs:string →
// "string", win:HexInt32 → "HexInt32") to its TDH number.
var outTypes = map[string]payload.OutType{
	"string":                     payload.OutString,
	"dateTime":                   payload.OutDateTime,
	"byte":                       payload.OutByte,
	"unsignedByte":               payload.OutUnsignedByte,
	"short":                      payload.OutShort,
	"unsignedShort":              payload.OutUnsignedShort,
	"int":                        payload.OutInt,
	"unsignedInt":                payload.OutUnsignedInt,
	"long":                       payload.OutLong,
	"unsignedLong":               payload.OutUnsignedLong,
	"float":                      payload.OutFloat,
	"double":                     payload.OutDouble,
	"boolean":                    payload.OutBoolean,
	"GUID":                       payload.OutGUID,
	"hexBinary":                  payload.OutHexBinary,
	"HexInt8":                    payload.OutHexInt8,
	"HexInt16":                   payload.OutHexInt16,
	"HexInt32":                   payload.OutHexInt32,
	"HexInt64":                   payload.OutHexInt64,
	"PID":                        payload.OutPID,
	"TID":                        payload.OutTID,
	"Port":                       payload.OutPort,
	"IPv4":                       payload.OutIPv4,
	"IPv6":                       payload.OutIPv6,
	"SocketAddress":              payload.OutSocketAddress,
	"CIMDateTime":                payload.OutCIMDateTime,
	"ETWTIME":                    payload.OutETWTime,
	"Xml":                        payload.OutXML,
	"ErrorCode":                  payload.OutErrorCode,
	"Win32Error":                 payload.OutWin32Error,
	"NTSTATUS":                   payload.OutNTStatus,
	"HResult":                    payload.OutHResult,
	"DateTimeCultureInsensitive": payload.OutDateTimeCultureInsensitive,
	"Json":                       payload.OutJSON,
	"Utf8":                       payload.OutUTF8,
	"Pkcs7WithTypeInfo":          payload.OutPKCS7WithTypeInfo,
	"CodePointer":                payload.OutCodePointer,
	"DateTimeUtc":                payload.OutDateTimeUTC,
}

// The names Winmeta.xml predefines, by their name in the win: namespace,
// with the display names Windows gives them (and the opcodes' values).
type predefined struct {
	value   uint8
	display string
}

var winLevels = map[string]string{
	"LogAlways":     "Log Always",
	"Critical":      "Critical",
	"Error":         "Error",
	"Warning":       "Warning",
	"Informational": "Information",
	"Verbose":       "Verbose",
}

var winOpcodes = map[string]predefined{
	"Info":      {0, "Info"},
	"Start":     {1, "Start"},
	"Stop":      {2, "Stop"},
	"DC_Start":  {3, "DC_Start"},
	"DC_Stop":   {4, "DC_Stop"},
	"Extension": {5, "Extension"},
	"Reply":     {6, "Reply"},
	"Resume":    {7, "Resume"},
	"Suspend":   {8, "Suspend"},
	"Send":      {9, "Send"},
	"Receive":   {240, "Receive"},
}

var winKeywords = map[string]string{
	"AnyKeyword":      "AnyKeyword",
	"ResponseTime":    "Response Time",
	"WDIContext":      "WDI Context",
	"WDIDiag":         "WDI Diag",
	"SQM":             "SQM",
	"AuditFailure":    "Audit Failure",
	"CorrelationHint": "Correlation Hint",
	"AuditSuccess":    "Audit Success",
	"EventlogClassic": "Classic",
}

// winChannels are the channels a provider may import without declaring.
var winChannels = map[string]string{
	"Application": "Application",
	"System":      "System",
	"Security":    "Security",
	"Setup":       "Setup",
}
