#pragma once
// Where a cache slot lives on the cache devices. Slots are placed in runs,
// as a stripe places chunks: slots [0, run) on device 0, [run, 2 run) on
// device 1, ..., then the next row. Consecutive lines that get consecutive
// slots (a large write into free space) therefore land side by side on one
// device and go out as one command per run, and a request larger than a run
// spreads over the devices. With run = 1 this is the old placement, slot s
// on device s % N at line s / N (volumes created before the run was
// recorded in the superblock).
//
// The run is part of the on-disk format of a volume with several cache
// devices (Superblock::placement_run): the line map names slots, and the
// slot says where the data is.
//
// Threading: immutable after construction; any thread.

#include <algorithm>
#include <bit>
#include <cstdint>

namespace tierlab {

class SlotPlacement {
 public:
  // Bytes of a run when the configuration leaves it to tierlab: 256 KiB, the
  // default interleave of Storage Spaces and a common md/dm-stripe chunk.
  static constexpr std::uint64_t kAutoRunBytes = 256 * 1024;
  // The largest run accepted (in lines).
  static constexpr std::uint32_t kMaxRun = 1u << 16;

  // `devices` >= 1; `run` a power of two in [1, kMaxRun] (Valid()).
  SlotPlacement(std::uint32_t devices, std::uint32_t run)
      : devices_(devices), run_(run), shift_(std::countr_zero(run)), mask_(run - 1) {}

  static bool Valid(std::uint64_t run) {
    return run >= 1 && run <= kMaxRun && std::has_single_bit(run);
  }
  // The run for lines of `line_size` bytes when none is configured, on
  // devices holding `per_device` lines each: kAutoRunBytes, halved until it
  // divides per_device, so that every line of every device is addressable
  // (MaxSlots).
  static std::uint32_t AutoRun(std::uint64_t line_size, std::uint64_t per_device) {
    std::uint64_t run = line_size >= kAutoRunBytes ? 1 : kAutoRunBytes / line_size;
    while (run > 1 && per_device % run != 0) run /= 2;
    return static_cast<std::uint32_t>(run);
  }

  std::uint32_t devices() const { return devices_; }
  std::uint32_t run() const { return run_; }

  // Shifts and 32-bit divisions: these run several times per request.
  std::uint32_t Device(std::uint32_t s) const {
    return devices_ == 1 ? 0 : (s >> shift_) % devices_;
  }
  // The device a volume line should go to when a free slot is taken for it:
  // lines in runs by address, as a stripe deals chunks. Taking the slot by
  // address rather than by allocation order spreads a hot set over the
  // devices (the first lines promoted are the hottest, and would otherwise
  // share a run), while consecutive lines of one request still share a run.
  std::uint32_t DeviceOfLine(std::uint64_t line) const {
    return devices_ == 1 ? 0 : static_cast<std::uint32_t>((line >> shift_) % devices_);
  }
  // The slot's line on its device (0 = the first line after the reserve).
  std::uint32_t Index(std::uint32_t s) const {
    if (devices_ == 1) return s;
    return (((s >> shift_) / devices_) << shift_) | (s & mask_);
  }
  // The slot at line `index` of `device` (the inverse of Device and Index).
  std::uint64_t SlotAt(std::uint32_t device, std::uint64_t index) const {
    if (devices_ == 1) return index;
    return (((index >> shift_) * devices_ + device) << shift_) | (index & mask_);
  }
  // How many of the slots [0, slots) live on `device` (they are its lines
  // [0, that count)).
  std::uint64_t SlotsOn(std::uint32_t device, std::uint64_t slots) const {
    const std::uint64_t row = std::uint64_t{run_} * devices_;
    const std::uint64_t rem = slots % row;
    const std::uint64_t first = std::uint64_t{device} * run_;
    const std::uint64_t part = rem <= first ? 0 : std::min<std::uint64_t>(rem - first, run_);
    return slots / row * run_ + part;
  }
  // Whether slot b's line directly follows slot a's on the same device.
  bool Adjacent(std::uint32_t a, std::uint32_t b) const {
    if ((a & mask_) != mask_) return b == a + 1;  // inside a run
    return b == a + 1 + (devices_ - 1) * run_;    // the device's next run
  }
  // How many slots are addressable when each device holds `per_device`
  // lines: whole rows, then the part row on device 0.
  std::uint64_t MaxSlots(std::uint64_t per_device) const {
    if (devices_ == 1) return per_device;
    return per_device / run_ * run_ * devices_ + per_device % run_;
  }

 private:
  std::uint32_t devices_;
  std::uint32_t run_;
  int shift_;
  std::uint32_t mask_;
};

}  // namespace tierlab
