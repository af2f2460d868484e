package kernel

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
)

// SystemConfig group (0x0B), kernel-events.md §16: the hardware and
// software configuration the kernel session writes when it stops (CPU,
// disks, NICs, video, services, power, IRQs, PnP devices, …), and the
// SysConfig events a trace merge adds (see SysConfigTask).

const groupSystemConfig = 0x0B

// hwConfigVersion stands for the Windows XP HWConfig classes, which have
// no EventVersion: a record of version 0 or 1 that is shorter than the
// fixed-size v0 layout of its opcode has the HWConfig one. It is the
// highest version, so that no record falls back to it from a higher one,
// and a record that names it (a classic header's 16-bit version can) is
// read as the version below.
const hwConfigVersion = 0xFFFF

// sysConfigFixed are the sizes below which a v0 or v1 record of CPU,
// PhyDisk, LogDisk and NIC is an HWConfig one: the fixed part of the v0
// layout, for CPU without the HyperThreadingFlag the class pages leave
// out. The HWConfig forms hold a name or two numbers after 20 to 40 bytes.
var sysConfigFixed = map[uint8]int{10: 796, 11: 568, 12: 108, 13: 584}

func init() {
	later(func() {
		const g = groupSystemConfig
		for op, fixed := range sysConfigFixed {
			payloadVersions[[2]uint8{g, op}] = func(p []byte, v uint16) uint16 {
				switch {
				case v <= 1 && len(p) < fixed:
					return hwConfigVersion
				case v == hwConfigVersion:
					return v - 1
				}
				return v
			}
		}

		cpu := func(domain uint16) []payload.Field {
			return fields(u32("MHz"), u32("NumberOfProcessors"), u32("MemSize"), u32("PageSize"),
				u32("AllocationGranularity"), wchars("ComputerName", 256), wchars("DomainName", domain),
				ptr("HyperThreadingFlag"))
		}
		phyDisk := func() []payload.Field {
			return fields(u32("DiskNumber"), u32("BytesPerSector"), u32("SectorsPerTrack"), u32("TracksPerCylinder"),
				u64("Cylinders"), u32("SCSIPort"), u32("SCSIPath"), u32("SCSITarget"), u32("SCSILun"),
				wchars("Manufacturer", 256), u32("PartitionCount"), u8("WriteCacheEnabled"), u8("Pad"),
				wchars("BootDriveLetter", 3), wchars("Spare", 2))
		}
		logDisk := func(tail ...payload.Field) []payload.Field {
			return append(fields(u64("StartOffset"), u64("PartitionSize"), u32("DiskNumber"), u32("Size"),
				u32("DriveType"), wchars("DriveLetterString", 4), u32("Pad1"), u32("PartitionNumber"),
				u32("SectorsPerCluster"), u32("BytesPerSector"), u32("Pad2"), i64("NumberOfFreeClusters"),
				i64("TotalNumberOfClusters"), wchars("FileSystem", 16), u32("VolumeExt")), tail...)
		}
		nic0 := func() []payload.Field {
			return fields(wchars("NICName", 256), u32("Index"), u32("PhysicalAddrLen"),
				payload.Field{Name: "PhysicalAddr", InType: payload.InBinary, Length: 16}, u32("Size"),
				i32("IpAddress"), i32("SubnetMask"), i32("DhcpServer"), i32("Gateway"), i32("PrimaryWinsServer"),
				i32("SecondaryWinsServer"), i32("DnsServer1"), i32("DnsServer2"), i32("DnsServer3"), i32("DnsServer4"),
				u32("Data"))
		}
		video := func() []payload.Field {
			return fields(u32("MemorySize"), u32("XResolution"), u32("YResolution"), u32("BitsPerPixel"),
				u32("VRefresh"), wchars("ChipType", 256), wchars("DACType", 256), wchars("AdapterString", 256),
				wchars("BiosString", 256), wchars("DeviceId", 256), hex(u32("StateFlags")))
		}
		services0 := func() []payload.Field {
			return fields(wchars("ServiceName", 34), wchars("DisplayName", 256), wchars("ProcessName", 34),
				u32("ProcessID"))
		}
		// TraceEvent spells the process id of Services ProcessID.
		services2 := func(tail ...payload.Field) []payload.Field {
			return append(fields(u32("ProcessID"), u32("ServiceState"), u32("SubProcessTag"), wstr("ServiceName"),
				wstr("DisplayName"), wstr("ProcessName")), tail...)
		}
		power := func() []payload.Field {
			return fields(u8("S1"), u8("S2"), u8("S3"), u8("S4"), u8("S5"), u8("Pad1"), u8("Pad2"), u8("Pad3"))
		}
		irq := func() []payload.Field {
			return fields(hex(u64("IRQAffinity")), u32("IRQNum"), u32("DeviceDescriptionLen"), wstr("DeviceDescription"))
		}
		pnp := func(tail ...payload.Field) []payload.Field {
			return append(fields(u32("IDLength"), u32("DescriptionLength"), u32("FriendlyNameLength"),
				wstr("DeviceID"), wstr("DeviceDescription"), wstr("FriendlyName")), tail...)
		}
		pnpFilters := func(status ...payload.Field) []payload.Field {
			fs := append(fields(guid("ClassGuid"), u32("UpperFiltersCount"), u32("LowerFiltersCount")), status...)
			return append(fs, wstr("DeviceID"), wstr("DeviceDescription"), wstr("FriendlyName"), wstr("PdoName"),
				wstr("ServiceName"), counted(wstr("UpperFilters"), "UpperFiltersCount"),
				counted(wstr("LowerFilters"), "LowerFiltersCount"))
		}
		for v := uint16(0); v <= 1; v++ {
			// The class pages give v0 CPU without HyperThreadingFlag.
			c := cpu(132)
			c[len(c)-1] = optional(c[len(c)-1])
			register(
				class{name: fmt.Sprintf("SystemConfig_V%d_CPU", v), group: g, version: v, opcodes: []uint8{10}, fields: c},
				class{name: fmt.Sprintf("SystemConfig_V%d_PhyDisk", v), group: g, version: v, opcodes: []uint8{11}, fields: phyDisk()},
				class{name: fmt.Sprintf("SystemConfig_V%d_LogDisk", v), group: g, version: v, opcodes: []uint8{12}, fields: logDisk()},
				class{name: fmt.Sprintf("SystemConfig_V%d_NIC", v), group: g, version: v, opcodes: []uint8{13}, fields: nic0()},
				class{name: fmt.Sprintf("SystemConfig_V%d_Video", v), group: g, version: v, opcodes: []uint8{14}, fields: video()},
				class{name: fmt.Sprintf("SystemConfig_V%d_Services", v), group: g, version: v, opcodes: []uint8{15}, fields: services0()},
				class{name: fmt.Sprintf("SystemConfig_V%d_Power", v), group: g, version: v, opcodes: []uint8{16}, fields: power()},
				class{name: fmt.Sprintf("SystemConfig_V%d_IRQ", v), group: g, version: v, opcodes: []uint8{21}, fields: irq()},
				class{name: fmt.Sprintf("SystemConfig_V%d_PnP", v), group: g, version: v, opcodes: []uint8{22}, fields: pnp()},
			)
		}
		register(
			class{name: "HWConfig_CPU", group: g, version: hwConfigVersion, opcodes: []uint8{10}, fields: fields(
				u32("MHz"), u32("NumberOfProcessors"), u32("MemSize"), u32("PageSize"), u32("AllocationGranularity"),
				wstr("ComputerName"))},
			class{name: "HWConfig_PhyDisk", group: g, version: hwConfigVersion, opcodes: []uint8{11}, fields: fields(
				u32("DiskNumber"), u32("BytesPerSector"), u32("SectorsPerTrack"), u32("TracksPerCylinder"),
				u64("Cylinders"), u32("SCSIPort"), u32("SCSIPath"), u32("SCSITarget"), u32("SCSILun"),
				wstr("Manufacturer"))},
			class{name: "HWConfig_LogDisk", group: g, version: hwConfigVersion, opcodes: []uint8{12}, fields: fields(
				u32("DiskNumber"), u32("Pad"), u64("StartOffset"), u64("PartitionSize"))},
			class{name: "HWConfig_NIC", group: g, version: hwConfigVersion, opcodes: []uint8{13}, fields: fields(
				wstr("NICName"))},

			class{name: "SystemConfig_V2_CPU", group: g, version: 2, opcodes: []uint8{10}, fields: cpu(134)},
			class{name: "SystemConfig_V2_PhyDisk", group: g, version: 2, opcodes: []uint8{11}, fields: phyDisk()},
			class{name: "SystemConfig_V2_LogDisk", group: g, version: 2, opcodes: []uint8{12}, fields: logDisk(u32("Pad3"))},
			// PhysicalAddr holds the MAC address in its low PhysicalAddrLen
			// bytes.
			class{name: "SystemConfig_V2_NIC", group: g, version: 2, opcodes: []uint8{13}, fields: fields(
				u64("PhysicalAddr"), u32("PhysicalAddrLen"), u32("Ipv4Index"), u32("Ipv6Index"),
				wstr("NICDescription"), wstr("IpAddresses"), wstr("DnsServerAddresses"))},
			class{name: "SystemConfig_V2_Video", group: g, version: 2, opcodes: []uint8{14}, fields: video()},
			class{name: "SystemConfig_V2_Services", group: g, version: 2, opcodes: []uint8{15}, fields: services2()},
			class{name: "SystemConfig_V2_Power", group: g, version: 2, opcodes: []uint8{16}, fields: power()},
			// MaxHashTableSize is signed, as TraceEvent reads it: -1 is a
			// size not configured.
			class{name: "SystemConfig_V2_Network", group: g, version: 2, opcodes: []uint8{17}, fields: fields(
				u32("TcbTablePartitions"), i32("MaxHashTableSize"), u32("MaxUserPort"), u32("TcpTimedWaitDelay"))},
			class{name: "SystemConfig_V2_OpticalMedia", group: g, version: 2, opcodes: []uint8{18}, fields: fields(
				u16("DiskNumber"), u16("BusType"), u16("DeviceType"), u16("MediaType"), u64("StartingOffset"),
				u64("Size"), u64("NumberOfFreeBlocks"), u64("TotalNumberOfBlocks"), u64("NextWritableAddress"),
				u32("NumberOfSessions"), u32("NumberOfTracks"), u32("BytesPerSector"), u16("DiscStatus"),
				u16("LastSessionStatus"), wstr("DriveLetter"), wstr("FileSystemName"), astr("DeviceName"),
				astr("ManufacturerName"))},
			class{name: "SystemConfig_V2_IRQ", group: g, version: 2, opcodes: []uint8{21}, fields: irq()},
			class{name: "SystemConfig_V2_PnP", group: g, version: 2, opcodes: []uint8{22}, fields: pnp()},
			// TraceEvent spells the first field TargetID.
			class{name: "SystemConfig_V2_IDEChannel", group: g, version: 2, opcodes: []uint8{23}, fields: fields(
				u32("TargetID"), u32("DeviceType"), u32("DeviceTimingMode"), u32("LocationInformationLen"),
				wstr("LocationInformation"))},
			class{name: "SystemConfig_V2_NumaNode", group: g, version: 2, opcodes: []uint8{24}, fields: fields(
				u32("NodeCount"), counted(hex(u64("NodeMap")), "NodeCount"))},
			// TraceEvent's kernel parser does not know Platform: it shows it
			// under the MOF root, MSNT_SystemTrace.
			class{name: "SystemConfig_V2_Platform", group: g, version: 2, opcodes: []uint8{25}, fields: fields(
				wstr("SystemManufacturer"), wstr("SystemProductName"), wstr("BiosDate"), wstr("BiosVersion")),
				provider: SystemTraceName},
			class{name: "SystemConfig_V2_ProcGroup", group: g, version: 2, opcodes: []uint8{26}, fields: fields(
				u32("GroupCount"), counted(ptr("Affinity"), "GroupCount"))},
			class{name: "SystemConfig_V2_ProcNumber", group: g, version: 2, opcodes: []uint8{27}, fields: fields(
				u32("ProcessorCount"), counted(u32("ProcessorNumber"), "ProcessorCount"))},
			class{name: "SystemConfig_V2_DPI", group: g, version: 2, opcodes: []uint8{28}, fields: fields(
				u32("MachineDPI"), u32("UserDPI"))},
			class{name: "SystemConfig_V2_CodeIntegrity", group: g, version: 2, opcodes: []uint8{29}, fields: fields(
				hex(u32("CodeIntegrityInfo")))},
			class{name: "SystemConfig_V2_TelemetryInfo", group: g, version: 2, opcodes: []uint8{30}, fields: fields(
				guid("MachineId"))},
			class{name: "SystemConfig_V2_Defrag", group: g, version: 2, opcodes: []uint8{31}, fields: fields(
				u64("AlignmentClusters"), u64("AvgFreeSpaceSize"), u64("ClustersPerSlab"),
				u64("FragmentedDirectoryExtents"), u64("FragmentedExtents"), u64("FreeSpaceCount"),
				u64("LargestFreeSpaceSize"), u64("LastRunActualPurgeClusters"), u64("LastRunClustersTrimmed"),
				u64("LastRunFullDefragTime"), u64("LastRunTime"), u64("MFTSize"), u64("TotalClusters"),
				u64("TotalUsedClusters"), u32("AvgFragmentsPerFile"), u32("BytesPerCluster"), u32("DirectoryCount"),
				u32("FragmentedDirectories"), u32("FragmentedFiles"), u32("FragmentedSpace"), u32("HardwareIssue"),
				u32("InUseMFTRecords"), u32("InUseSlabs"), u32("LastRunActualPurgeSlabs"),
				u32("LastRunInitialBackedSlabs"), u32("LastRunPercentFragmentation"), u32("LastRunPinnedSlabs"),
				u32("LastRunPotentialPurgeSlabs"), u32("LastRunSpaceInefficientSlabs"), u32("LastRunTrimmedSlabs"),
				u32("LastRunUnknownEvictFailSlabs"), u32("LastRunVolsnapPinnedSlabs"), u32("MFTFragmentCount"),
				u32("MovableFiles"), u32("TotalMFTRecords"), u32("TotalSlabs"), u32("UnmovableFiles"),
				guid("VolumeId"), wstr("VolumePathNames"))},
			class{name: "SystemConfig_V2_MobilePlatform", group: g, version: 2, opcodes: []uint8{32}, fields: fields(
				wstr("BootLoaderVersion"), wstr("FirmwareRevision"), wstr("FriendlyName"), wstr("HardwareRevision"),
				wstr("Manufacturer"), wstr("ManufacturerDisplayName"), wstr("ManufacturerModelName"),
				wstr("MobileOperatorDisplayName"), wstr("MobileOperatorName"), wstr("ModelName"),
				wstr("RadioHardwareRevision"), wstr("RadioSoftwareRevision"), wstr("ROMVersion"), wstr("SOCVersion"),
				wstr("HardwareVariant"))},
			class{name: "SystemConfig_V2_DeviceFamily", group: g, version: 2, opcodes: []uint8{33}, fields: fields(
				hex(u64("UAPInfo")), u32("DeviceFamily"), u32("DeviceForm"))},
			class{name: "SystemConfig_V2_FlightIds", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				wstr("UpdateId"), wstr("FlightIdList"))},
			// The notes list VendorIdentifier before ProcessorIdentifier; the
			// records of the diagnostics hub sample have it last (at 396:
			// "GenuineIntel", with "Intel64 Family 6 Model 79 …" at 140).
			class{name: "SystemConfig_V2_Processors", group: g, version: 2, opcodes: []uint8{35}, fields: fields(
				u32("ProcessorIndex"), hex(u32("FeatureSet")), u32("ProcessorSpeed"), wchars("ProcessorName", 64),
				wchars("ProcessorIdentifier", 128), wchars("VendorIdentifier", 16))},
			class{name: "SystemConfig_Virtualization", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				u8("VbsEnabled"), u8("HvciEnabled"), u8("HyperVisorEnabled"), u8("Reserved"))},
			class{name: "SystemConfig_Boot", group: g, version: 2, opcodes: []uint8{37}, fields: fields(
				hex(u64("BootFlags")), u32("FirmwareType"), u8("SecureBootEnabled"), u8("SecureBootCapable"),
				u8("Reserved1"), u8("Reserved2"))},

			class{name: "SystemConfig_V3_CPU", group: g, version: 3, opcodes: []uint8{10}, fields: append(cpu(134),
				ptr("HighestUserAddress"), u16("ProcessorArchitecture"), u16("ProcessorLevel"),
				u16("ProcessorRevision"), u8("PaeEnabled"), u8("NxEnabled"), u32("MemorySpeed"))},
			class{name: "SystemConfig_V3_IRQ", group: g, version: 3, opcodes: []uint8{21}, fields: fields(
				hex(u64("IRQAffinity")), u16("IRQGroup"), u16("Reserved"), u32("IRQNum"), u32("DeviceDescriptionLen"),
				wstr("DeviceDescription"))},
			class{name: "SystemConfig_V3_Services", group: g, version: 3, opcodes: []uint8{15}, fields: services2(
				wstr("LoadOrderGroup"), wstr("SvchostGroup"))},
			class{name: "SystemConfig_V3_PnP", group: g, version: 3, opcodes: []uint8{22}, fields: pnp(wstr("PdoName"))},
			class{name: "SystemConfig_V3_MobilePlatform", group: g, version: 3, opcodes: []uint8{32}, fields: fields(
				wstr("DeviceManufacturer"), wstr("DeviceManufacturerDisplayName"), wstr("DeviceModel"),
				wstr("DeviceModelDisplayName"), wstr("MobileOperator"), wstr("MobileOperatorDisplayName"),
				wstr("HardwareVersion"), wstr("SocVersion"), wstr("RadioHardwareVersion"),
				wstr("RadioSoftwareVersion"), wstr("BspVersion"), wstr("OemSoftwareVersion"))},
			class{name: "SystemConfig_V4_PnP", group: g, version: 4, opcodes: []uint8{22}, fields: pnpFilters()},
			class{name: "SystemConfig_V4_MobilePlatform", group: g, version: 4, opcodes: []uint8{32}, fields: fields(
				wstr("DeviceManufacturer"), wstr("DeviceManufacturerDisplayName"), wstr("DeviceModel"),
				wstr("DeviceModelDisplayName"), wstr("MobileOperator"), wstr("SocVersion"), wstr("BspVersion"))},
			class{name: "SystemConfig_PnP", group: g, version: 5, opcodes: []uint8{22}, fields: pnpFilters(
				hex(u32("DevStatus")), u32("DevProblem"))},
		)

		registerSysConfig()
	})
}

// SysConfigTask is the class GUID of the SysConfig events a trace merge
// adds as classic records: the system paths, the volume mapping (NT device
// paths and their drive letters) and the build. The kernel event notes do
// not cover them; TraceEvent shows them as Windows Kernel events of task
// SysConfig, and the layouts are those of the records in the merged .NET
// sample (every string there is a NUL-terminated UTF-16 one).
var SysConfigTask = uuid.MustParse("9b79ee91-b5fd-41c0-a243-4248e266e9d0")

// registerSysConfig adds the SysConfig events. Opcodes 36 (1352 bytes in
// the pktmon samples: network adapter and filter names among binary
// fields) and 37 (16 bytes, all zero in the merged .NET sample) show as
// SysConfig/Opcode(36) and (37), as every opcode of the class without a
// name: their layouts are not documented.
func registerSysConfig() {
	t := SysConfigTask
	registerKernelClassic(t, 32, "SysConfig/BuildInfo", fields(
		payload.Field{Name: "InstallDate", InType: payload.InFileTime}, wstr("BuildLab"), wstr("ProductName")))
	registerKernelClassic(t, 33, "SysConfig/SystemPaths", fields(wstr("SystemDirectory"), wstr("SystemWindowsDirectory")))
	// TraceEvent calls the one string of an unknown volume Value.
	registerKernelClassic(t, 34, "SysConfig/UnknownVolume", fields(wstr("Value")))
	registerKernelClassic(t, 35, "SysConfig/VolumeMapping", fields(wstr("NtPath"), wstr("DosPath")))
}

// registerKernelClassic adds a classic event of the kernel session that
// LookupRecord finds by class GUID and opcode, whatever its version, and
// that shows under the kernel's provider name; a nil layout gives an event
// with a name and no layout.
func registerKernelClassic(task uuid.UUID, opcode uint8, name string, fs []payload.Field) {
	registerClassic(task, ProviderName, opcode, name, fs, nil)
}

// noFields is the layout of an event without payload fields (fields()
// is nil, which stands for no layout).
var noFields = []payload.Field{}
