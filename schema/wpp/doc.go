// Package wpp decodes WPP software-tracing messages, the MESSAGE records
// drivers and services write through WPP's trace macros: it reads their
// trace message format (TMF) files, or the annotations a private PDB holds
// them in, cuts a record's argument bytes by the item types the TMF gives,
// and renders the message text as tracefmt does.
//
// A Set holds messages by message GUID and number, loaded from .tmf files,
// PDBs and directories of them (Load). A Message decodes a record's
// arguments into values of the payload field model (Decode, Values) and
// renders its text (AppendText) or tracefmt's whole line with its prefix
// (AppendLine). Package describe uses it when describe.Options.WPP is set.
//
// TMF text is read line by line: a line that cannot be read costs the
// message it belongs to and is reported as a *SyntaxError. PDBs are read
// by a reader of this package's own (MSF container, DBI module list,
// module symbol streams), every size checked against the streams and the
// file; a damaged PDB gives a *PDBError and costs only itself.
package wpp
