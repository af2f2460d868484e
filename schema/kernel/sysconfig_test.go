package kernel_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/schema/kernel"
)

// TestSystemConfigFields decodes a payload of every SystemConfig class.
// Where the merged .NET sample has a record of the class, the values are
// that record's (TraceEvent prints them as the comments say).
func TestSystemConfigFields(t *testing.T) {
	cpu := func(ps, domain int) *pb {
		return newPB(ps).u32(3592).u32(8).u32(4096).u32(4096).u32(65536).wn("BRIANROB-W8", 256).wn("", domain)
	}
	const cpuText = "MHz=3592 NumberOfProcessors=8 MemSize=4096 PageSize=4096 AllocationGranularity=65536 " +
		"ComputerName=BRIANROB-W8 DomainName= HyperThreadingFlag="
	v3 := func(p *pb) *pb { return p.ptr(0x7FFFFFFEFFFF).u16(9).u16(6).u16(20225).u8(1).u8(1).u32(2400) }
	const v3Text = " ProcessorArchitecture=9 ProcessorLevel=6 ProcessorRevision=20225 PaeEnabled=1 NxEnabled=1 MemorySpeed=2400"

	phyDisk := newPB(8).u32(0).u32(512).u32(63).u32(255).u64(16578).u32(0).u32(0).u32(0).u32(0).
		wn("Virtual HD ATA Device", 256).u32(2).u8(1).u8(0).wn("C", 3).wn("", 2).b
	const phyDiskText = "DiskNumber=0 BytesPerSector=512 SectorsPerTrack=63 TracksPerCylinder=255 Cylinders=16578 SCSIPort=0 " +
		"SCSIPath=0 SCSITarget=0 SCSILun=0 Manufacturer=Virtual HD ATA Device PartitionCount=2 WriteCacheEnabled=1 Pad=0 " +
		"BootDriveLetter=C Spare="
	logDisk := func() *pb {
		return newPB(8).u64(368050176).u64(135996112896).u32(0).u32(112).u32(1).wn("C:", 4).u32(0).u32(2).u32(8).
			u32(512).u32(0).u64(29898381).u64(33202175).wn("NTFS", 16).u32(0)
	}
	const logDiskText = "StartOffset=368050176 PartitionSize=135996112896 DiskNumber=0 Size=112 DriveType=1 DriveLetterString=C: " +
		"Pad1=0 PartitionNumber=2 SectorsPerCluster=8 BytesPerSector=512 Pad2=0 NumberOfFreeClusters=29898381 " +
		"TotalNumberOfClusters=33202175 FileSystem=NTFS VolumeExt=0"
	video := newPB(4).u32(64<<20).u32(1920).u32(1080).u32(32).u32(60).wn("chip", 256).wn("dac", 256).wn("adapter", 256).
		wn("bios", 256).wn(`PCI\VEN_1414`, 256).u32(5).b
	const videoText = "MemorySize=67108864 XResolution=1920 YResolution=1080 BitsPerPixel=32 VRefresh=60 ChipType=chip " +
		`DACType=dac AdapterString=adapter BiosString=bios DeviceId=PCI\VEN_1414 StateFlags=0x5`
	power := newPB(8).u8(0).u8(0).u8(0).u8(0).u8(1).u8(0).u8(0).u8(0).b
	const powerText = "S1=0 S2=0 S3=0 S4=0 S5=1 Pad1=0 Pad2=0 Pad3=0"
	pnpHead := func(ps int) *pb { return newPB(ps).u32(14).u32(12).u32(0).w(`ACPI\PNP0C01\1`).w("System board").w("") }
	const pnpText = `IDLength=14 DescriptionLength=12 FriendlyNameLength=0 DeviceID=ACPI\PNP0C01\1 DeviceDescription=System board FriendlyName=`
	filters := func(ps int, status bool) *pb {
		p := newPB(ps).guid("4d36e97d-e325-11ce-bfc1-08002be10318").u32(2).u32(1)
		if status {
			p.u32(0x180200A).u32(0)
		}
		return p.w(`PCI\VEN_1414&DEV_5353`).w("Microsoft Hyper-V S3 Cap").w("").w(`\Device\NTPNP_PCI0004`).w("s3cap").
			w("up1").w("up2").w("low1")
	}
	const filtersTail = `DeviceID=PCI\VEN_1414&DEV_5353 DeviceDescription=Microsoft Hyper-V S3 Cap FriendlyName= ` +
		`PdoName=\Device\NTPNP_PCI0004 ServiceName=s3cap UpperFilters=["up1","up2"] LowerFilters=["low1"]`

	// The optical drive of the merged .NET sample, as recorded.
	optical := newPB(8).u16(0).u16(2).u16(5).u16(0x10).u64(0).u64(0).u64(0).u64(0).u64(0).u32(0).u32(0).u32(2048).
		u16(0).u16(0).w("D:").w("UDF").a("Virtual CD/ROM  ").a("Msft    ").b
	defrag := newPB(8)
	var defragText []string
	for i, n := range strings.Fields("AlignmentClusters AvgFreeSpaceSize ClustersPerSlab FragmentedDirectoryExtents " +
		"FragmentedExtents FreeSpaceCount LargestFreeSpaceSize LastRunActualPurgeClusters LastRunClustersTrimmed " +
		"LastRunFullDefragTime LastRunTime MFTSize TotalClusters TotalUsedClusters") {
		defrag.u64(uint64(1000 + i))
		defragText = append(defragText, n+"="+itoa(1000+i))
	}
	for i, n := range strings.Fields("AvgFragmentsPerFile BytesPerCluster DirectoryCount FragmentedDirectories " +
		"FragmentedFiles FragmentedSpace HardwareIssue InUseMFTRecords InUseSlabs LastRunActualPurgeSlabs " +
		"LastRunInitialBackedSlabs LastRunPercentFragmentation LastRunPinnedSlabs LastRunPotentialPurgeSlabs " +
		"LastRunSpaceInefficientSlabs LastRunTrimmedSlabs LastRunUnknownEvictFailSlabs LastRunVolsnapPinnedSlabs " +
		"MFTFragmentCount MovableFiles TotalMFTRecords TotalSlabs UnmovableFiles") {
		defrag.u32(uint32(i))
		defragText = append(defragText, n+"="+itoa(i))
	}
	defrag.guid("b3b0fa5f-3c87-4542-b08d-7886ea577083").w(`C:\`)
	defragText = append(defragText, "VolumeId=b3b0fa5f-3c87-4542-b08d-7886ea577083", `VolumePathNames=C:\`)
	strs := func(ps int, names ...string) (*pb, string) {
		p := newPB(ps)
		var text []string
		for _, n := range names {
			p.w(strings.ToLower(n))
			text = append(text, n+"="+strings.ToLower(n))
		}
		return p, strings.Join(text, " ")
	}
	mobile2, mobile2Text := strs(8, "BootLoaderVersion", "FirmwareRevision", "FriendlyName", "HardwareRevision",
		"Manufacturer", "ManufacturerDisplayName", "ManufacturerModelName", "MobileOperatorDisplayName",
		"MobileOperatorName", "ModelName", "RadioHardwareRevision", "RadioSoftwareRevision", "ROMVersion", "SOCVersion",
		"HardwareVariant")
	mobile3, mobile3Text := strs(8, "DeviceManufacturer", "DeviceManufacturerDisplayName", "DeviceModel",
		"DeviceModelDisplayName", "MobileOperator", "MobileOperatorDisplayName", "HardwareVersion", "SocVersion",
		"RadioHardwareVersion", "RadioSoftwareVersion", "BspVersion", "OemSoftwareVersion")
	mobile4, mobile4Text := strs(4, "DeviceManufacturer", "DeviceManufacturerDisplayName", "DeviceModel",
		"DeviceModelDisplayName", "MobileOperator", "SocVersion", "BspVersion")

	checkFields(t, []fieldCase{
		// CPU: the v0/v1 DomainName is 132 characters, so the pointer
		// after it is unaligned; the class pages leave it out.
		{hook: 0x0B0A, version: 0, ps: 4, data: cpu(4, 132).ptr(1).b, event: "SystemConfig/CPU", want: cpuText + "0x1"},
		{hook: 0x0B0A, version: 0, ps: 4, data: cpu(4, 132).b, event: "SystemConfig/CPU", want: strings.TrimSuffix(cpuText, " HyperThreadingFlag=")},
		{hook: 0x0B0A, version: 1, ps: 8, data: cpu(8, 132).ptr(0x100000000).b, event: "SystemConfig/CPU", want: cpuText + "0x100000000"},
		// MHz=3,592; … ComputerName=BRIANROB-W8; DomainName=; HyperThreadingFlag=0x00000000
		{hook: 0x0B0A, version: 2, ps: 8, data: cpu(8, 134).ptr(0).b, event: "SystemConfig/CPU", want: cpuText + "0x0"},
		{hook: 0x0B0A, version: 3, ps: 8, data: v3(cpu(8, 134).ptr(0xF)).b, event: "SystemConfig/CPU",
			want: cpuText + "0xF HighestUserAddress=0x7FFFFFFEFFFF" + v3Text},
		{hook: 0x0B0A, version: 3, ps: 4, data: v3(cpu(4, 134).ptr(0xF)).b, event: "SystemConfig/CPU",
			want: cpuText + "0xF HighestUserAddress=0xFFFEFFFF" + v3Text},

		{hook: 0x0B0B, version: 0, ps: 4, data: phyDisk, event: "SystemConfig/PhyDisk", want: phyDiskText},
		{hook: 0x0B0B, version: 2, ps: 8, data: phyDisk, event: "SystemConfig/PhyDisk", want: phyDiskText},
		{hook: 0x0B0C, version: 1, ps: 8, data: logDisk().b, event: "SystemConfig/LogDisk", want: logDiskText},
		{hook: 0x0B0C, version: 2, ps: 8, data: logDisk().u32(0).b, event: "SystemConfig/LogDisk", want: logDiskText + " Pad3=0"},

		{hook: 0x0B0D, version: 0, ps: 4, data: newPB(4).wn("Ethernet", 256).u32(12).u32(6).raw(0, 0x15, 0x5d, 0x7c, 0x58, 0x28).
			raw(make([]byte, 10)...).u32(7).u32(0x0100007F).u32(-256 & 0xFFFFFFFF).u32(0).u32(1).u32(2).u32(3).u32(4).u32(5).
			u32(6).u32(7).u32(9).b, event: "SystemConfig/NIC",
			want: "NICName=Ethernet Index=12 PhysicalAddrLen=6 PhysicalAddr=0x00155D7C582800000000000000000000 Size=7 " +
				"IpAddress=16777343 SubnetMask=-256 DhcpServer=0 Gateway=1 PrimaryWinsServer=2 SecondaryWinsServer=3 " +
				"DnsServer1=4 DnsServer2=5 DnsServer3=6 DnsServer4=7 Data=9"},
		// PhysicalAddrLen=6; PhysicalAddr=44,360,508,708,096; Ipv4Index=12; …
		{hook: 0x0B0D, version: 2, ps: 8, data: newPB(8).u64(44360508708096).u32(6).u32(12).u32(12).
			w("Microsoft Hyper-V Network Adapter").w("2001:4898:f0:26::1;10.128.0.55").w("10.50.50.50").b,
			event: "SystemConfig/NIC",
			want: "PhysicalAddr=44360508708096 PhysicalAddrLen=6 Ipv4Index=12 Ipv6Index=12 " +
				"NICDescription=Microsoft Hyper-V Network Adapter IpAddresses=2001:4898:f0:26::1;10.128.0.55 DnsServerAddresses=10.50.50.50"},

		{hook: 0x0B0E, version: 1, ps: 4, data: video, event: "SystemConfig/Video", want: videoText},
		{hook: 0x0B0E, version: 2, ps: 8, data: video, event: "SystemConfig/Video", want: videoText},

		{hook: 0x0B0F, version: 0, ps: 4, data: newPB(4).wn("ALG", 34).wn("Application Layer Gateway Service", 256).
			wn("alg.exe", 34).u32(1234).b, event: "SystemConfig/Services",
			want: "ServiceName=ALG DisplayName=Application Layer Gateway Service ProcessName=alg.exe ProcessID=1234"},
		{hook: 0x0B0F, version: 2, ps: 8, data: newPB(8).u32(144).u32(4).u32(5).w("Appinfo").w("Application Information").
			w("svchost.exe").b, event: "SystemConfig/Services",
			want: "ProcessID=144 ServiceState=4 SubProcessTag=5 ServiceName=Appinfo DisplayName=Application Information ProcessName=svchost.exe"},
		{hook: 0x0B0F, version: 3, ps: 8, data: newPB(8).u32(0).u32(1).u32(3).w("AJRouter").w("AllJoyn Router Service").w("").
			w("").w("LocalServiceNetworkRestricted").b, event: "SystemConfig/Services",
			want: "ProcessID=0 ServiceState=1 SubProcessTag=3 ServiceName=AJRouter DisplayName=AllJoyn Router Service ProcessName= " +
				"LoadOrderGroup= SvchostGroup=LocalServiceNetworkRestricted"},

		{hook: 0x0B10, version: 0, ps: 4, data: power, event: "SystemConfig/Power", want: powerText},
		// S1=0; S2=0; S3=0; S4=0; S5=1
		{hook: 0x0B10, version: 2, ps: 8, data: power, event: "SystemConfig/Power", want: powerText},
		// TcbTablePartitions=32; MaxHashTableSize=-1; MaxUserPort=65,536; TcpTimedWaitDelay=120
		{hook: 0x0B11, version: 2, ps: 8, data: newPB(8).u32(32).u32(0xFFFFFFFF).u32(65536).u32(120).b,
			event: "SystemConfig/Network", want: "TcbTablePartitions=32 MaxHashTableSize=-1 MaxUserPort=65536 TcpTimedWaitDelay=120"},
		{hook: 0x0B12, version: 2, ps: 8, data: optical, event: "SystemConfig/OpticalDisk",
			want: "DiskNumber=0 BusType=2 DeviceType=5 MediaType=16 StartingOffset=0 Size=0 NumberOfFreeBlocks=0 " +
				"TotalNumberOfBlocks=0 NextWritableAddress=0 NumberOfSessions=0 NumberOfTracks=0 BytesPerSector=2048 " +
				"DiscStatus=0 LastSessionStatus=0 DriveLetter=D: FileSystemName=UDF DeviceName=Virtual CD/ROM   " +
				"ManufacturerName=Msft    "},

		{hook: 0x0B15, version: 1, ps: 4, data: newPB(4).u64(0xFF).u32(9).u32(11).w("ACPI SCI").b, event: "SystemConfig/IRQ",
			want: "IRQAffinity=0xFF IRQNum=9 DeviceDescriptionLen=11 DeviceDescription=ACPI SCI"},
		{hook: 0x0B15, version: 3, ps: 8, data: newPB(8).u64(0xFFFFFFFF).u16(0).u16(0).u32(10).u32(9).w("Channel 0").b,
			event: "SystemConfig/IRQ",
			want:  "IRQAffinity=0xFFFFFFFF IRQGroup=0 Reserved=0 IRQNum=10 DeviceDescriptionLen=9 DeviceDescription=Channel 0"},

		{hook: 0x0B16, version: 0, ps: 4, data: pnpHead(4).b, event: "SystemConfig/PnP", want: pnpText},
		{hook: 0x0B16, version: 2, ps: 8, data: pnpHead(8).b, event: "SystemConfig/PnP", want: pnpText},
		{hook: 0x0B16, version: 3, ps: 8, data: pnpHead(8).w(`\Device\00000018`).b, event: "SystemConfig/PnP",
			want: pnpText + ` PdoName=\Device\00000018`},
		{hook: 0x0B16, version: 4, ps: 8, data: filters(8, false).b, event: "SystemConfig/PnP",
			want: "ClassGuid=4d36e97d-e325-11ce-bfc1-08002be10318 UpperFiltersCount=2 LowerFiltersCount=1 " + filtersTail},
		{hook: 0x0B16, version: 5, ps: 8, data: filters(8, true).b, event: "SystemConfig/PnP",
			want: "ClassGuid=4d36e97d-e325-11ce-bfc1-08002be10318 UpperFiltersCount=2 LowerFiltersCount=1 DevStatus=0x180200A " +
				"DevProblem=0 " + filtersTail},

		// TargetID=0; DeviceType=1; DeviceTimingMode=1,040; LocationInformationLen=9; LocationInformation=Channel 0
		{hook: 0x0B17, version: 2, ps: 4, data: newPB(4).u32(0).u32(1).u32(1040).u32(9).w("Channel 0").b,
			event: "SystemConfig/IDEChannel",
			want:  "TargetID=0 DeviceType=1 DeviceTimingMode=1040 LocationInformationLen=9 LocationInformation=Channel 0"},
		{hook: 0x0B18, version: 2, ps: 8, data: newPB(8).u32(2).u64(0xF).u64(0xF0).b, event: "SystemConfig/NumaNode",
			want: `NodeCount=2 NodeMap=["0xF","0xF0"]`},
		{hook: 0x0B19, version: 2, ps: 8, data: newPB(8).w("Microsoft Corporation").w("Virtual Machine").w("12/07/2018").w("090008").b,
			event: "SystemConfig/Platform",
			want:  "SystemManufacturer=Microsoft Corporation SystemProductName=Virtual Machine BiosDate=12/07/2018 BiosVersion=090008"},
		{hook: 0x0B1A, version: 2, ps: 8, data: newPB(8).u32(2).ptr(0xFFFFFFFFFFFF).ptr(0xFF).b, event: "SystemConfig/ProcessorGroup",
			want: `GroupCount=2 Affinity=["0xFFFFFFFFFFFF","0xFF"]`},
		{hook: 0x0B1A, version: 2, ps: 4, data: newPB(4).u32(1).ptr(0xFF).b, event: "SystemConfig/ProcessorGroup",
			want: `GroupCount=1 Affinity=["0xFF"]`},
		{hook: 0x0B1B, version: 2, ps: 4, data: newPB(4).u32(3).u32(0).u32(1).u32(2).b, event: "SystemConfig/ProcessorNumber",
			want: "ProcessorCount=3 ProcessorNumber=[0,1,2]"},
		{hook: 0x0B1C, version: 2, ps: 8, data: newPB(8).u32(96).u32(120).b, event: "SystemConfig/DPI", want: "MachineDPI=96 UserDPI=120"},
		{hook: 0x0B1D, version: 2, ps: 8, data: newPB(8).u32(1).b, event: "SystemConfig/CodeIntegrity", want: "CodeIntegrityInfo=0x1"},
		{hook: 0x0B1E, version: 2, ps: 8, data: newPB(8).guid("b3b0fa5f-3c87-4542-b08d-7886ea577083").b,
			event: "SystemConfig/TelemetryConfiguration", want: "MachineId=b3b0fa5f-3c87-4542-b08d-7886ea577083"},
		{hook: 0x0B1F, version: 2, ps: 8, data: defrag.b, event: "SystemConfig/Defragmentation", want: strings.Join(defragText, " ")},
		{hook: 0x0B20, version: 2, ps: 8, data: mobile2.b, event: "SystemConfig/MobilePlatform", want: mobile2Text},
		{hook: 0x0B20, version: 3, ps: 8, data: mobile3.b, event: "SystemConfig/MobilePlatform", want: mobile3Text},
		{hook: 0x0B20, version: 4, ps: 4, data: mobile4.b, event: "SystemConfig/MobilePlatform", want: mobile4Text},
		{hook: 0x0B21, version: 2, ps: 8, data: newPB(8).u64(0xA00004A6101C2).u32(3).u32(0).b, event: "SystemConfig/DeviceFamily",
			want: "UAPInfo=0xA00004A6101C2 DeviceFamily=3 DeviceForm=0"},
		{hook: 0x0B22, version: 2, ps: 8, data: newPB(8).w("AFBFD20A.1").w("RS:685B,FX:11AF08B8").b, event: "SystemConfig/FlightIds",
			want: "UpdateId=AFBFD20A.1 FlightIdList=RS:685B,FX:11AF08B8"},
		// As in the diagnostics hub sample: the identifier before the vendor.
		{hook: 0x0B23, version: 2, ps: 8, data: newPB(8).u32(0).u32(0x3D1B3DFF).u32(2295).
			wn("Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz", 64).wn("Intel64 Family 6 Model 79 Stepping 1", 128).
			wn("GenuineIntel", 16).b, event: "SystemConfig/Processors",
			want: "ProcessorIndex=0 FeatureSet=0x3D1B3DFF ProcessorSpeed=2295 ProcessorName=Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz " +
				"ProcessorIdentifier=Intel64 Family 6 Model 79 Stepping 1 VendorIdentifier=GenuineIntel"},
		{hook: 0x0B24, version: 2, ps: 8, data: newPB(8).u8(1).u8(1).u8(1).u8(0).b, event: "SystemConfig/Virtualization",
			want: "VbsEnabled=1 HvciEnabled=1 HyperVisorEnabled=1 Reserved=0"},
		{hook: 0x0B25, version: 2, ps: 8, data: newPB(8).u64(0x10).u32(2).u8(1).u8(1).u8(0).u8(0).b, event: "SystemConfig/Boot",
			want: "BootFlags=0x10 FirmwareType=2 SecureBootEnabled=1 SecureBootCapable=1 Reserved1=0 Reserved2=0"},

		// Windows XP's HWConfig classes, shorter than the v0 layouts.
		{hook: 0x0B0A, version: 0, ps: 4, data: newPB(4).u32(2400).u32(2).u32(1024).u32(4096).u32(65536).w("XPBOX").b,
			event: "SystemConfig/CPU",
			want:  "MHz=2400 NumberOfProcessors=2 MemSize=1024 PageSize=4096 AllocationGranularity=65536 ComputerName=XPBOX"},
		{hook: 0x0B0B, version: 1, ps: 4, data: newPB(4).u32(0).u32(512).u32(63).u32(255).u64(9729).u32(1).u32(0).u32(0).u32(0).
			w("ST380011A").b, event: "SystemConfig/PhyDisk",
			want: "DiskNumber=0 BytesPerSector=512 SectorsPerTrack=63 TracksPerCylinder=255 Cylinders=9729 SCSIPort=1 " +
				"SCSIPath=0 SCSITarget=0 SCSILun=0 Manufacturer=ST380011A"},
		{hook: 0x0B0C, version: 0, ps: 4, data: newPB(4).u32(0).u32(0).u64(32256).u64(80023749120).b, event: "SystemConfig/LogDisk",
			want: "DiskNumber=0 Pad=0 StartOffset=32256 PartitionSize=80023749120"},
		{hook: 0x0B0D, version: 1, ps: 4, data: newPB(4).w("Intel PRO/100").b, event: "SystemConfig/NIC", want: "NICName=Intel PRO/100"},
	})
}

func itoa(i int) string {
	var b []byte
	if i == 0 {
		return "0"
	}
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestSysConfigFields decodes the SysConfig records a trace merge adds,
// with payloads of the merged .NET sample, which TraceEvent prints as the
// comments say.
func TestSysConfigFields(t *testing.T) {
	const task = "9b79ee91-b5fd-41c0-a243-4248e266e9d0"
	checkClassic(t, []classicCase{
		// InstallDate=70/01/01 00:00:00.00...; BuildLab=9200.16384.amd64fre....; ProductName=Windows 8 Pro
		{task, 32, newPB(8).u64(116444736000000000).w("9200.16384.amd64fre.win8_rtm.120725-1247").w("Windows 8 Pro").b,
			"SysConfig/BuildInfo",
			"InstallDate=1970-01-01T00:00:00.0000000Z BuildLab=9200.16384.amd64fre.win8_rtm.120725-1247 ProductName=Windows 8 Pro"},
		// SystemDirectory=C:\Windows\system32; SystemWindowsDirectory=C:\Windows\
		{task, 33, newPB(8).w(`C:\Windows\system32`).w(`C:\Windows\`).b, "SysConfig/SystemPaths",
			`SystemDirectory=C:\Windows\system32 SystemWindowsDirectory=C:\Windows\`},
		// Value=\Device\HarddiskVolu...
		{task, 34, newPB(8).w(`\Device\HarddiskVolume1\`).b, "SysConfig/UnknownVolume", `Value=\Device\HarddiskVolume1\`},
		// NtPath=\??\; DosPath=
		{task, 35, newPB(8).w(`\??\`).w("").b, "SysConfig/VolumeMapping", `NtPath=\??\ DosPath=`},
		{task, 35, newPB(8).w(`\Device\HarddiskVolume2\`).w(`C:\`).b, "SysConfig/VolumeMapping", `NtPath=\Device\HarddiskVolume2\ DosPath=C:\`},
	})
	e, _, ok := kernel.LookupRecord(classicRecord(t, task, 37, 0, 8, make([]byte, 16)))
	require.True(t, ok)
	assert.Equal(t, "SysConfig/Opcode(37)", e.Name)
	assert.Nil(t, e.Payload, "the sample's 16 zero bytes say nothing of the layout")
	// Opcode 36 (80 of 102 records of a netsh trace) is not documented.
	e, _, ok = kernel.LookupRecord(classicRecord(t, task, 36, 0, 8, nil))
	require.True(t, ok)
	assert.Equal(t, "Windows Kernel/SysConfig/Opcode(36)", e.FullName())
	assert.Nil(t, e.Payload)
}

// TestSystemConfigVersions picks the class of relogged SystemConfig
// records, whose classic headers carry 16-bit versions: newer versions
// fall back to the newest class, never to HWConfig, and a short v0 or v1
// record is HWConfig.
func TestSystemConfigVersions(t *testing.T) {
	const class = "01853a65-418f-4f36-aefc-dc0f1d2fd235"
	v3 := newPB(8).u32(1).u32(1).u32(1).u32(1).u32(1).wn("A", 256).wn("", 134).ptr(0).ptr(0).u16(0).u16(0).u16(0).u8(0).u8(0).u32(0).b
	short := newPB(8).u32(1).u32(1).u32(1).u32(1).u32(1).w("A").b
	for _, c := range []struct {
		version uint16
		data    []byte
		class   string
	}{
		{3, v3, "SystemConfig_V3_CPU"},
		{0x200, v3, "SystemConfig_V3_CPU"},
		{0xFFFE, v3, "SystemConfig_V3_CPU"},
		{0xFFFF, v3, "SystemConfig_V3_CPU"},
		{1, short, "HWConfig_CPU"},
		{0, short, "HWConfig_CPU"},
		{2, short, "SystemConfig_V2_CPU"},
	} {
		r := classicRecord(t, class, 10, c.version, 8, c.data)
		require.Equal(t, c.version, r.ClassVersion)
		e, _, ok := kernel.LookupRecord(r)
		require.True(t, ok, "v%#x", c.version)
		assert.Equal(t, "SystemConfig/CPU", e.Name)
		assert.Equal(t, c.class, e.Payload.Name, "v%#x", c.version)
	}
}
