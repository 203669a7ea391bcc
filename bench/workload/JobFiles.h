#pragma once
// fio's files, laid out as regions of one volume.
//
// fio gives each job its own files unless they share a `filename`: a job
// without one gets `nrfiles` files named JOB.N.F (job name, clone number,
// file number) in `directory`, each `filesize` or size / nrfiles bytes. A
// tierlab volume is one device, so each distinct file becomes a region of
// it, and the jobs that name the same file share its region, as fio's jobs
// share a file.
//
// Rules (docs/FIO-COMPAT.md):
// - A job file with no filename, directory, nrfiles or filesize in any job
//   is a job file for a device: every job addresses the whole volume, with
//   its offset and size, as fio's jobs with filename=/dev/... do. Its layout
//   has `uses_files` false.
// - A file's length is the most any of its jobs needs: offset + the job's
//   share (filesize, else size / nrfiles) + (numjobs - 1) x offset_increment
//   (percentages of the volume). With split_size the share is the job's part
//   of size (size / numjobs) over its files, and the clones of a named file
//   lie one share apart in it; the files fio gives each clone are its own,
//   so they hold only its share.
// - A named file (filename) that no job gives a size is the whole volume,
//   as a device named in filename is. A file fio would create (a default
//   name) needs a size: without size or filesize it is an error, as in fio.
// - Sized files are laid out one after another from LBA 0, in the order the
//   jobs first name them, each starting on the volume's block size. They
//   must fit the volume.
// - Inside a file, a job's offset, size and offset_increment apply as they
//   do on the volume; its I/Os go round robin over its files, one I/O each
//   (fio's file_service_type default, roundrobin:1).
//
// Errors name the section and the option (exit code 2).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

// Where a file lies on the volume.
struct FileRegion {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool operator==(const FileRegion&) const = default;
};

struct JobFile {
  std::string name;  // fio's: the filename entry, or DIRECTORY/JOB.N.F
  FileRegion region;
};

struct FileLayout {
  bool uses_files = false;  // false: every job addresses the whole volume
  std::vector<JobFile> files;
  // [section][job] -> indices into `files`, in the job's round-robin order.
  std::vector<std::vector<std::vector<std::uint32_t>>> files_of;

  // The regions of one job's files; empty when !uses_files.
  std::vector<FileRegion> RegionsOf(std::size_t section, std::uint32_t job) const;
};

Expected<FileLayout> LayOutFiles(std::span<const Profile> sections, std::uint64_t volume_bytes,
                                 std::uint32_t alignment);

// The profile one job runs in one of its `file_count` files (file number
// `file`, of `length` bytes): its share of the job's size, offsets in
// bytes, its own random streams (file 0 keeps the job's). io_size and
// number_ios stay the job's: JobStream counts them over all its files.
Profile ProfileForFile(const Profile& p, std::uint64_t volume_bytes, std::uint32_t alignment,
                       std::uint32_t file, std::uint32_t file_count, std::uint64_t length);

}  // namespace tierlab
