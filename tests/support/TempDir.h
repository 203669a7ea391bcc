#pragma once
// A directory made under the system temp dir (mkdtemp) for one test and
// removed with everything in it when the test ends. Empty path() if it
// could not be made.

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace tierlab::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "tierlab-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // `name` inside the directory.
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace tierlab::testing
