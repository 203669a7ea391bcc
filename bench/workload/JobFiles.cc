#include "bench/workload/JobFiles.h"

#include <algorithm>
#include <map>

namespace tierlab {
namespace {

bool UsesFiles(const Profile& p) {
  return !p.filename.empty() || !p.directory.empty() || p.nrfiles != 1 || p.filesize != 0;
}

// fio's ':' separates file names; "\:" is a colon inside a name.
std::vector<std::string> SplitFileNames(const std::string& s) {
  std::vector<std::string> out(1);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == ':') {
      out.back() += ':';
      ++i;
    } else if (s[i] == ':') {
      out.emplace_back();
    } else {
      out.back() += s[i];
    }
  }
  std::erase_if(out, [](const std::string& n) { return n.empty(); });
  return out;
}

std::uint64_t AlignUp(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}

// Bytes of each of the job's files it covers: filesize, else its size (with
// split_size its part of the section's) over its files; 0 when the job
// gives no size.
std::uint64_t ShareOfEachFile(const Profile& p, std::uint64_t volume_bytes, std::uint32_t align,
                              std::size_t file_count) {
  if (p.filesize != 0) return p.filesize;
  if (!p.has_size) return 0;
  // A percentage of a named file is of the file as it is (fio reads its
  // size), so it sizes nothing: the generator resolves it against the file.
  if (!p.filename.empty() && p.size.is_percent && !p.split_size) return 0;
  const std::uint64_t total =
      p.split_size ? SplitSizePart(p, volume_bytes, align) : p.size.Resolve(volume_bytes, align);
  return total / file_count / align * align;
}

// Whether filesize gives each file's size, the job doing each from its
// offset to its end, as fio's setup_files (io_size = filesize - the file's
// offset; a size percentage is of the file, cut there). split_size keeps
// its parts.
bool FileSized(const Profile& p) {
  return p.filesize != 0 && !p.split_size;
}

// How far apart the clones' regions lie inside a file: offset_increment; with
// split_size, one share in a file the clones name together, and nothing in
// the files fio gives each clone (each is the clone's own already).
std::uint64_t CloneIncrement(const Profile& p, std::uint64_t volume_bytes, std::uint32_t align,
                             std::uint64_t share) {
  if (p.split_size) return p.filename.empty() ? 0 : share;
  return p.offset_increment.Resolve(volume_bytes, align);
}

}  // namespace

std::vector<FileRegion> FileLayout::RegionsOf(std::size_t section, std::uint32_t job) const {
  std::vector<FileRegion> out;
  if (!uses_files) return out;
  for (std::uint32_t f : files_of.at(section).at(job)) out.push_back(files[f].region);
  return out;
}

Expected<FileLayout> LayOutFiles(std::span<const Profile> sections, std::uint64_t volume_bytes,
                                 std::uint32_t alignment) {
  FileLayout layout;
  layout.uses_files = std::any_of(sections.begin(), sections.end(), UsesFiles);
  if (!layout.uses_files) return layout;
  const std::uint32_t align = std::max<std::uint32_t>(alignment, 1);

  std::map<std::string, std::uint32_t> by_name;
  std::vector<bool> created;  // a default name: fio would create it, so it needs a size
  for (const Profile& p : sections) {
    const std::string who = "job '" + p.name + "': ";
    std::vector<std::vector<std::uint32_t>> jobs;
    for (std::uint32_t j = 0; j < p.numjobs; ++j) {
      std::vector<std::string> names;
      const bool named = !p.filename.empty();
      if (named) {
        names = SplitFileNames(p.filename);
        if (names.empty()) return MakeError(who + "filename: no file name in '" + p.filename + "'");
      } else {
        for (std::uint32_t f = 0; f < p.nrfiles; ++f) {
          names.push_back(p.name + "." + std::to_string(j) + "." + std::to_string(f));
        }
      }
      if (names.size() > kMaxNrfiles) {
        return MakeError(who + "filename: at most " + std::to_string(kMaxNrfiles) +
                         " files per job, got " + std::to_string(names.size()));
      }
      const std::uint64_t share = ShareOfEachFile(p, volume_bytes, align, names.size());
      if (!named && share == 0) {
        return MakeError(who + "nrfiles: the job's files need a size: set size= or filesize=");
      }
      // The file must hold every clone's region: offset + share, the last
      // clone offset_increment further on. filesize is the file's size, as
      // fio's: a clone does the file from its offset on (FileSized).
      const unsigned __int128 need =
          FileSized(p) ? p.filesize
          : share == 0
              ? 0
              : static_cast<unsigned __int128>(p.offset.Resolve(volume_bytes, align)) + share +
                    static_cast<unsigned __int128>(CloneIncrement(p, volume_bytes, align, share)) *
                        (p.numjobs - 1);
      if (need > volume_bytes) {
        return MakeError(
            who + "filesize: a file of " + std::to_string(static_cast<std::uint64_t>(need)) +
            " bytes does not fit the volume (" + std::to_string(volume_bytes) + " bytes)");
      }
      std::vector<std::uint32_t> idx;
      for (std::string& n : names) {
        const std::string key = p.directory.empty() ? n : p.directory + "/" + n;
        auto [it, added] =
            by_name.try_emplace(key, static_cast<std::uint32_t>(layout.files.size()));
        if (added) {
          layout.files.push_back({key, {}});
          created.push_back(!named);
        }
        JobFile& file = layout.files[it->second];
        file.region.length = std::max(file.region.length, static_cast<std::uint64_t>(need));
        idx.push_back(it->second);
      }
      jobs.push_back(std::move(idx));
    }
    layout.files_of.push_back(std::move(jobs));
  }

  std::uint64_t next = 0;
  for (JobFile& f : layout.files) {
    if (f.region.length == 0) {  // a named file no job sized: the device itself
      f.region = {0, volume_bytes};
      continue;
    }
    f.region.length = AlignUp(f.region.length, align);
    f.region.offset = next;
    if (f.region.length > volume_bytes - std::min(next, volume_bytes)) {
      std::uint64_t total = 0;
      std::size_t sized = 0;
      for (const JobFile& g : layout.files) {
        if (g.region.length != 0 && !(g.region.offset == 0 && g.region.length == volume_bytes)) {
          total += AlignUp(g.region.length, align);
          ++sized;
        }
      }
      return MakeError("filesize: the job file's " + std::to_string(sized) + " files need " +
                       std::to_string(total) + " bytes, the volume has " +
                       std::to_string(volume_bytes));
    }
    next += f.region.length;
  }
  return layout;
}

Profile ProfileForFile(const Profile& p, std::uint64_t volume_bytes, std::uint32_t alignment,
                       std::uint32_t file, std::uint32_t file_count, std::uint64_t length) {
  const std::uint32_t align = std::max<std::uint32_t>(alignment, 1);
  Profile q = p;
  q.filename.clear();
  q.directory.clear();
  q.nrfiles = 1;
  q.filesize = 0;
  q.number_ios = 0;  // io_size and number_ios count over the job's files (JobStream.h)
  if (file != 0) q.randseed = p.randseed + 0x9e3779b97f4a7c15ULL * file;
  if (FileSized(p)) {
    // The generator resolves offset, offset_increment and a size
    // percentage against the file, as fio does, and cuts at its end.
    q.split_size = false;
    q.has_size = true;
    // All of the file from the offset on (in percentages, what the offset
    // leaves, as a profile may not name more than 100% together).
    const double rest = p.offset.is_percent ? 100 - p.offset.percent : 100;
    q.size = p.has_size && p.size.is_percent ? p.size : SizeSpec{0, rest, true};
    return q;
  }
  const std::uint64_t share = ShareOfEachFile(p, volume_bytes, align, file_count);
  // Percentages were of the volume when the job sized its files; in bytes
  // they stay what they were. A job that sizes none keeps them, of the file
  // (fio's: a percentage of a file's real size).
  if (share != 0) {
    q.offset = SizeSpec{p.offset.Resolve(volume_bytes, align), 0, false};
    q.offset_increment = SizeSpec{CloneIncrement(p, volume_bytes, align, share), 0, false};
  } else if (p.split_size) {
    q.offset_increment = SizeSpec{CloneIncrement(p, volume_bytes, align, share), 0, false};
  }
  // Resolved into size and offset_increment; a named file no job sizes is
  // split by the generator over the file's length.
  q.split_size = p.split_size && share == 0;
  if (share != 0) {
    std::uint64_t covered = std::min(share, length);
    q.has_size = true;
    q.size = SizeSpec{covered, 0, false};
  }
  return q;
}

}  // namespace tierlab
