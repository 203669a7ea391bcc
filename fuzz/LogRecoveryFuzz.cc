// libFuzzer target for the log-structured target's recovery
// (LogStructuredTarget::Recover): what `serve` and `run --real` read from a
// log's NVRAM and capacity devices after a crash, devices that may be
// damaged. See fuzz/README.md.
//
// Random bytes would almost never carry a valid label, segment header or
// NVRAM record, so the target makes a small log write real data and lets
// the input steer it:
//   - the first bytes choose writes (block, length) and the moment the log
//     is stopped, mid-flight (a crash);
//   - the next ones are XORed over the two devices at input-chosen offsets
//     (damage), or, when the first byte says so, become NVRAM records with
//     valid CRCs but input-chosen fields (the "CRC-valid but absurd" case).
// A new target then recovers from the devices. It must answer with a
// status, never crash, hang or read outside its devices; if it recovers,
// every block must read back, and without forged records each block must
// hold one of the versions written to it, or zeros (damage may lose data,
// never invent it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "fuzz/FuzzInput.h"
#include "tiering/core/Crc32c.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/LogSegmentFormat.h"
#include "tiering/targets/LogStructuredTarget.h"

namespace {

using namespace tierlab;

constexpr std::uint64_t kBlock = 4096;
constexpr std::uint64_t kSegmentBytes = 64 * 1024;
constexpr std::uint64_t kCapacityBytes = 10 * kSegmentBytes;
constexpr std::uint64_t kNvramBytes = 48 * 1024;
constexpr std::uint64_t kLogId = 5;

using tierlab::fuzz::Input;

// A lent device: the test owns the RAM devices, each target borrows them.
// Once `*power` is off (the crash) nothing reaches the device or comes back.
class Lent final : public BlockDevice {
 public:
  Lent(Engine& e, BlockDevice& d, const bool* power)
      : BlockDevice(e, d.name() + "-lent"), d_(d), power_(power) {}
  std::uint64_t Size() const override { return d_.Size(); }
  std::uint32_t BlockSize() const override { return d_.BlockSize(); }
  std::string Kind() const override { return "lent"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    if (!*power_) return;
    auto* c = new IoCallback(std::move(done));
    d_.Submit(req, [this, c, power = power_](Status st) {
      if (*power) Finish(*c, st);
      delete c;
    });
  }

 private:
  BlockDevice& d_;
  const bool* power_;
};

std::unique_ptr<LogStructuredTarget> MakeLog(Engine& e, BlockDevice& nvram, BlockDevice& cap,
                                             const bool* power) {
  LogStructuredOptions o;
  o.segment_bytes = kSegmentBytes;
  o.usable = 0.5;
  o.cleaner_start = 0.6;
  o.segment_writes_in_flight = 2;
  o.log_id = kLogId;
  return std::make_unique<LogStructuredTarget>(e, "log", std::make_unique<Lent>(e, nvram, power),
                                               std::make_unique<Lent>(e, cap, power), o);
}

void Fill(std::byte* p, std::uint64_t block, std::uint64_t version) {
  std::memset(p, static_cast<int>(version & 0xff), kBlock);
  std::memcpy(p, &block, 8);
  std::memcpy(p + 8, &version, 8);
}

Status Recover(SimEngine& e, LogStructuredTarget& log) {
  Status got = Status::kShutdown;
  log.Recover([&](Status st) { got = st; });
  e.Run();
  return got;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  const std::uint8_t mode = in.Take<std::uint8_t>();
  const bool forge = (mode & 1) != 0;
  SimEngine e;
  RamDevice nvram(e, "nvram", kNvramBytes);
  RamDevice cap(e, "cap", kCapacityBytes);
  std::vector<std::set<std::uint64_t>> versions;
  std::vector<std::vector<std::byte>> buffers;
  bool power = true;
  {
    auto log = MakeLog(e, nvram, cap, &power);
    if (Recover(e, *log) != Status::kOk) std::abort();  // new devices: labelled
    const std::uint64_t blocks = log->Size() / kBlock;
    versions.resize(blocks);
    const int writes = in.Take<std::uint8_t>();
    std::uint64_t version = 0;
    for (int i = 0; i < writes && !in.empty(); ++i) {
      const std::uint64_t first = in.Take<std::uint8_t>() % blocks;
      const std::uint64_t n =
          1 + in.Take<std::uint8_t>() % std::min<std::uint64_t>(8, blocks - first);
      buffers.emplace_back(n * kBlock);
      ++version;
      for (std::uint64_t b = 0; b < n; ++b) {
        Fill(buffers.back().data() + b * kBlock, first + b, version);
        versions[first + b].insert(version);
      }
      log->Submit({IoOp::kWrite, 0, first * kBlock, n * kBlock, buffers.back().data()},
                  [](Status) {});
      // Now and then let the log run a while: segments go out, the cleaner runs.
      if (in.Take<std::uint8_t>() < 64) e.RunUntil(e.Now() + 200'000);
    }
    // The crash: whatever is still queued never happens.
    e.RunUntil(e.Now() + in.Take<std::uint16_t>() * 100);
    power = false;
    e.Run();  // what was in flight completes into nothing
  }
  power = true;

  const int edits = in.Take<std::uint8_t>() % 16;
  for (int i = 0; i < edits && !in.empty(); ++i) {
    const bool on_nvram = (in.Take<std::uint8_t>() & 1) != 0;
    BlockDevice& dev = on_nvram ? static_cast<BlockDevice&>(nvram) : cap;
    std::vector<std::byte> unit(512);
    const std::uint64_t at = in.Take<std::uint32_t>() % (dev.Size() / 512) * 512;
    Status st = Status::kShutdown;
    dev.Submit({IoOp::kRead, 0, at, 512, unit.data()}, [&](Status s) { st = s; });
    e.Run();
    if (forge && on_nvram && at >= kBlock) {
      // A record header with valid CRCs and input-chosen fields.
      NvramRecordHeader h;
      h.log_id = kLogId;
      h.position = in.Take<std::uint64_t>();
      h.sequence = in.Take<std::uint64_t>();
      h.segment_offset = in.Take<std::uint32_t>();
      h.blocks = in.Take<std::uint8_t>();
      h.first_volume_block = in.Take<std::uint64_t>();
      h.unit_bytes = 512;
      std::vector<std::byte> rest(h.blocks * kBlock);
      if (at + 512 + rest.size() <= dev.Size()) {
        dev.Submit({IoOp::kRead, 0, at + 512, rest.size(), rest.data()}, [](Status) {});
        e.Run();
      }
      h.data_crc = Crc32c(0, rest.data(), rest.size());
      EncodeNvramRecordHeader(h, unit);
    } else {
      for (int k = 0; k < 8; ++k)
        unit[in.Take<std::uint16_t>() % 512] ^= std::byte{in.Take<std::uint8_t>()};
    }
    dev.Submit({IoOp::kWrite, 0, at, 512, unit.data()}, [](Status) {});
    e.Run();
  }

  auto log = MakeLog(e, nvram, cap, &power);
  if (Recover(e, *log) != Status::kOk) return 0;  // refused: an answer
  const std::uint64_t blocks = log->Size() / kBlock;
  std::vector<std::byte> buf(kBlock);
  const std::vector<std::byte> zeros(kBlock);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    Status st = Status::kShutdown;
    log->Submit({IoOp::kRead, 0, b * kBlock, kBlock, buf.data()}, [&](Status s) { st = s; });
    e.Run();
    if (st != Status::kOk) std::abort();
    if (forge) continue;
    if (std::memcmp(buf.data(), zeros.data(), kBlock) == 0) continue;
    std::uint64_t block = 0, version = 0;
    std::memcpy(&block, buf.data(), 8);
    std::memcpy(&version, buf.data() + 8, 8);
    std::vector<std::byte> want(kBlock);
    Fill(want.data(), b, version);
    if (block != b || versions[b].count(version) == 0 ||
        std::memcmp(buf.data(), want.data(), kBlock) != 0) {
      std::abort();  // data that was never written to this block
    }
  }
  return 0;
}
