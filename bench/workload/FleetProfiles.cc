#include "bench/workload/FleetProfiles.h"

namespace tierlab {
namespace {

constexpr std::string_view kVmFleetSource =
    "VMFleet, microsoft/diskspd Frameworks/VMFleet: Profile.psm1 (the General, Peak, VDI and SQL "
    "templates) and VMFleet.psm1 (Measure-FleetCoreWorkload runs General at -w 0, 10 and 30 "
    "with -rs50, Peak over the first 5 GiB of each VM, and sizes each VM's disk from "
    "Get-FleetDataDiskEstimate: the lower of 200% of the cache and 30% of the capacity, over the "
    "VMs; New-Fleet makes one VM per core). Here: numjobs = VMs (8, an 8-core node), size = "
    "30% of the volume shared by them (split_size; make it 2x the cache where that is lower); "
    "iodepth = -t x -o; rwmixread = 100 - -w; -rs is percentage_random; -rdpct95/5:4/10 is "
    "zoned:95/5:4/10:1/85. Prepare with precondition=fill (VMFleet writes every VM's disk "
    "first)";

constexpr std::string_view kHciBenchSource =
    "HCIBench easy run, vmware-labs/hci-benchmark-appliance: HCIBench/automation/lib/easy-run.rb "
    "(vSAN OSA hybrid: 2 VMs per disk group, 4 vmdks per VM (8 in Max mode), 32 outstanding I/Os "
    "per VM split over its vmdks (8 threads each; a quarter for 256k with vSAN checksums on), the "
    "working set 25% of the cache (75% all-flash) over the FTT copies, disks prepared ZERO or "
    "RANDOM, 1800 s warm-up, 3600 s test) and HCIBench/automation/generate-vdb-param-file.sh "
    "(vdbench sd threads and range, wd xfersize, rdpct, seekpct). Here: numjobs = VMs (4: two "
    "disk groups), nrfiles = vmdks, iodepth = vmdks x threads, rwmixread = rdpct, "
    "percentage_random = seekpct; the working set is 1% of the volume shared by the VMs "
    "(split_size), a third of the cache of a shorthand layout with a cache device per two HDDs "
    "(nvme2+hdd4: 5 of 16 GiB): set size to 25% of your cache. Prepare with precondition=fill "
    "(HCIBench's ZERO prep)";

constexpr std::string_view kSqlioSource =
    "SQLIO Disk Subsystem Benchmark Tool (Microsoft, download id 20163): -kR/-kW, -frandom/"
    "-fsequential, -b in KB, -t threads per test file (2 in the param.txt it ships), -o "
    "outstanding I/Os per thread; the classic test matrix of reads and writes, random and "
    "sequential, at 4, 8 and 64 KB with -o32 (e.g. cnblogs.com/mengfanrong/p/5351343.html; "
    "param.txt: developer.aliyun.com/article/353648). Here: numjobs = servers or VMs (1), "
    "iodepth = -t x -o = 64, the test file 25% of the volume (tierlab's choice: larger than any "
    "shorthand layout's cache; the shipped param.txt's is 100 MB) shared by the jobs "
    "(split_size). Prepare with precondition=fill (SQLIO writes its test file first)";

// What every fleet profile shares: tierlab's timing, one VM per job on its
// own part of `size_percent` of the volume, and random offsets drawn with
// repeats (norandommap): DISKSPD, vdbench and SQLIO keep no map of the
// blocks a run has covered, unlike fio.
Profile Fleet(RwMode rw, std::uint64_t bs, std::uint32_t vms, std::uint32_t iodepth,
              double size_percent) {
  Profile p;
  p.rw = rw;
  p.bs = bs;
  p.numjobs = vms;
  p.iodepth = iodepth;
  p.has_size = true;
  p.size = SizeSpec{0, size_percent, true};
  p.split_size = true;
  p.runtime = 60 * kSecond;
  p.time_based = true;
  p.ramp_time = 10 * kSecond;
  p.norandommap = true;
  return p;
}

// DISKSPD's -rdpct95/5:4/10, the distribution of VMFleet's General, VDI and
// SQL templates: 95% of I/Os on the first 5% of the target, 4% on the next
// 10%, the last 1% on the rest.
void HotBand(Profile& p) {
  p.random_distribution = RandomDistribution::kZoned;
  p.zones = {{95, 5}, {4, 10}, {1, 85}};
}

constexpr std::uint32_t kFleetVms = 8;
constexpr double kFleetWorkingSetPercent = 30;

// DISKSPD through VMFleet: -b bs, -t threads, -o outstanding per thread, -w
// write %, -rs random %.
Profile Diskspd(std::uint64_t bs, std::uint32_t threads, std::uint32_t outstanding,
                std::uint32_t write_pct, std::uint32_t random_pct) {
  Profile p = Fleet(RwMode::kRandRw, bs, kFleetVms, threads * outstanding, kFleetWorkingSetPercent);
  p.rwmixread = 100 - write_pct;
  p.percentage_random = random_pct;
  return p;
}

Profile General(std::uint32_t write_pct) {
  Profile p = Diskspd(4096, 1, 32, write_pct, 50);
  HotBand(p);
  return p;
}

// Peak: uniform random 4k reads over the first 5 GiB of each VM's disk.
// Each VM gets its own 5 GiB here, one after another (offset_increment), the
// same bytes per VM as VMFleet's; the fleet's footprint grows with the VMs.
Profile Peak() {
  Profile p = Diskspd(4096, 1, 32, 0, 100);
  p.split_size = false;
  p.size = SizeSpec{5ULL << 30, 0, false};
  p.offset_increment = p.size;
  return p;
}

// VDI: DISKSPD's two targets on each VM's first 10 GiB (8 GiB for reads):
// 32k writes 20% random and 8k reads 80% random, -t1 -o8 each, equal -g
// weights. One mixed job: reads 8k, writes 32k (fio's bs=8k,32k), half the
// I/Os each, one queue of 16. tierlab has one percentage_random for both
// directions, so it is their mean, 50%, and both cover the 10 GiB.
Profile Vdi() {
  Profile p = Diskspd(8192, 1, 16, 50, 50);
  p.write_bs = 32768;
  p.split_size = false;
  p.size = SizeSpec{10ULL << 30, 0, false};
  p.offset_increment = p.size;
  HotBand(p);
  return p;
}

// SQL: the OLTP target, -t4 -o32 -r -b8k -w30 -rdpct95/5:4/10. VMFleet's
// template adds a log stream (-t1 -o1 -s -b32k -w100 over the first 5 GiB)
// weighted 300 against the OLTP's 4 x 1500: 5% of the I/Os, left out, as
// one job has one pattern.
Profile Sql() {
  Profile p = Diskspd(8192, 4, 32, 30, 100);
  HotBand(p);
  return p;
}

constexpr std::uint32_t kHciVms = 4;
constexpr std::uint32_t kHciVmdks = 4;
constexpr std::uint32_t kHciOutstandingPerVm = 32;
constexpr double kHciWorkingSetPercent = 1;

// vdbench through HCIBench's easy run: xfersize, rdpct, seekpct; sequential
// runs (seekpct 0) have a quarter of the threads.
Profile Vdbench(std::uint64_t bs, std::uint32_t read_pct, std::uint32_t seek_pct) {
  const std::uint32_t outstanding = seek_pct == 0 ? kHciOutstandingPerVm / 4 : kHciOutstandingPerVm;
  Profile p = Fleet(RwMode::kRandRw, bs, kHciVms, outstanding, kHciWorkingSetPercent);
  p.nrfiles = kHciVmdks;
  p.rwmixread = read_pct;
  p.percentage_random = seek_pct;
  return p;
}

constexpr std::uint32_t kSqlioThreads = 2;
constexpr std::uint32_t kSqlioOutstanding = 32;
constexpr double kSqlioFilePercent = 25;

Profile Sqlio(RwMode rw, std::uint64_t bs) {
  return Fleet(rw, bs, 1, kSqlioThreads * kSqlioOutstanding, kSqlioFilePercent);
}

std::string Kib(std::uint64_t bs) {
  return std::to_string(bs / 1024) + "k";
}

void AddVmFleet(std::vector<BuiltinProfile>& out) {
  // Measure-FleetCoreWorkload's General runs, by their DISKSPD -w.
  for (std::uint32_t w : {0u, 10u, 30u}) {
    const std::string dw = "-w" + std::to_string(w);
    out.push_back(MakeBuiltin(
        "vmfleet-general-" + dw.substr(1),
        "VMFleet General: 4k " + dw + " -t1 -o32 -rs50 -rdpct95/5:4/10, 8 VMs sharing 30%",
        kVmFleetSource, General(w)));
  }
  out.push_back(MakeBuiltin("vmfleet-peak",
                            "VMFleet Peak: 4k -w0 -t1 -o32 -r, uniform, 8 VMs x 5 GiB",
                            kVmFleetSource, Peak()));
  out.push_back(MakeBuiltin(
      "vmfleet-vdi",
      "VMFleet VDI: 8k reads / 32k writes 50/50, -o8 each, -rdpct95/5:4/10, 8 VMs x 10 GiB",
      kVmFleetSource, Vdi()));
  out.push_back(
      MakeBuiltin("vmfleet-sql",
                  "VMFleet SQL, OLTP part: 8k -w30 -t4 -o32 -r -rdpct95/5:4/10, 8 VMs sharing 30%",
                  kVmFleetSource, Sql()));
}

void AddHciBench(std::vector<BuiltinProfile>& out) {
  // easy-run.rb's workloads, named as it names them (4k70r: 4k, 70% read).
  struct Run {
    std::uint64_t bs;
    std::uint32_t read_pct;
    std::uint32_t seek_pct;
  };
  constexpr std::uint64_t kLarge = std::uint64_t{256} << 10;
  for (const Run& r : {Run{4096, 100, 100}, Run{4096, 0, 100}, Run{4096, 70, 100},
                       Run{8192, 50, 100}, Run{kLarge, 100, 0}, Run{kLarge, 0, 0}}) {
    const std::string label = Kib(r.bs) + std::to_string(r.read_pct) + "r";
    const Profile p = Vdbench(r.bs, r.read_pct, r.seek_pct);
    std::string description = "HCIBench ";
    description.append(label).append(": ").append(Kib(r.bs));
    if (r.seek_pct == 0) {
      description += r.read_pct == 100 ? " sequential read" : " sequential write";
    } else {
      description +=
          ", " + std::to_string(r.read_pct) + "% read, " + std::to_string(r.seek_pct) + "% random";
    }
    description += ", " + std::to_string(p.numjobs) + " VMs x " + std::to_string(p.nrfiles) +
                   " vmdks, QD" + std::to_string(p.iodepth) + " per VM";
    out.push_back(MakeBuiltin("hcibench-" + label, std::move(description), kHciBenchSource, p));
  }
}

void AddSqlio(std::vector<BuiltinProfile>& out) {
  struct Test {
    const char* name;
    RwMode rw;
    const char* flags;  // SQLIO's -k and -f
  };
  for (std::uint64_t bs : {4096u, 8192u, 65536u}) {
    for (const Test& t : {Test{"randread", RwMode::kRandRead, "-kR -frandom"},
                          Test{"randwrite", RwMode::kRandWrite, "-kW -frandom"},
                          Test{"seqread", RwMode::kRead, "-kR -fsequential"},
                          Test{"seqwrite", RwMode::kWrite, "-kW -fsequential"}}) {
      out.push_back(
          MakeBuiltin("sqlio-" + Kib(bs) + "-" + t.name,
                      "SQLIO " + std::string(t.flags) + " -b" + std::to_string(bs / 1024) + " -t" +
                          std::to_string(kSqlioThreads) + " -o" + std::to_string(kSqlioOutstanding),
                      kSqlioSource, Sqlio(t.rw, bs)));
    }
  }
}

std::vector<BuiltinProfile> MakeFleetProfiles() {
  std::vector<BuiltinProfile> v;
  AddVmFleet(v);
  AddHciBench(v);
  AddSqlio(v);
  return v;
}

}  // namespace

const std::vector<BuiltinProfile>& FleetProfiles() {
  static const std::vector<BuiltinProfile> kProfiles = MakeFleetProfiles();
  return kProfiles;
}

}  // namespace tierlab
