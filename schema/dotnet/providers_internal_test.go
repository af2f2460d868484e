package dotnet

import "testing"

// The GUIDs other packages name are those the generated tables hold under
// the providers' names.
func TestNamedProvidersMatchTables(t *testing.T) {
	want := map[string]bool{"Microsoft-Windows-DotNETRuntime": true, "Microsoft-Windows-DotNETRuntimeRundown": true,
		"Microsoft-Windows-DotNETRuntimePrivate": true}
	for _, p := range providers {
		var got [16]byte
		switch p.name {
		case "Microsoft-Windows-DotNETRuntime":
			got = RuntimeProvider
		case "Microsoft-Windows-DotNETRuntimeRundown":
			got = RundownProvider
		case "Microsoft-Windows-DotNETRuntimePrivate":
			got = PrivateProvider
		default:
			continue
		}
		delete(want, p.name)
		if got != p.guid {
			t.Errorf("%s: %x, the tables say %v", p.name, got, p.guid)
		}
	}
	if len(want) > 0 {
		t.Errorf("not in the tables: %v", want)
	}
}
