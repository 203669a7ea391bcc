#pragma once
// Replacing a small metadata file (volume.json, serve.json) so that a reader
// sees the old content or the new one, never a torn or empty file, and a
// failed write leaves the old file as it was.
//
// Steps: write the content to PATH.tmp (created fresh), check every write,
// fsync it (when `durable`), close it and check the close (NFS reports
// write-back errors there), rename it over PATH, then fsync the directory
// so the rename itself survives a machine crash (when `durable`). On any
// failure PATH.tmp is removed and PATH is untouched; the error names the
// file and the step ("volume.json.tmp: write: No space left on device").
//
// `durable` = false skips both fsyncs: for a live status file that is
// rewritten every second on the server's event-loop thread, where an fsync
// would stall the I/O it serves, and whose content after a machine crash is
// stale anyway. Every write is still checked.
//
// Threading: any thread; two writers of one PATH must be serialised by the
// caller (the volume lock does it for volume.json, one server per volume
// for serve.json).

#include <string>
#include <string_view>

#include "tiering/core/Expected.h"

namespace tierlab {

// Errors: ErrorKind::kIo (exit 3), naming PATH.tmp or the directory.
Expected<void> WriteFileAtomically(const std::string& path, std::string_view content,
                                   bool durable = true);

}  // namespace tierlab
