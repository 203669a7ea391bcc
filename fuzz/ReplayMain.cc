// A main for the fuzz targets in the ordinary build (g++ or clang, no
// libFuzzer): runs LLVMFuzzerTestOneInput once on every file named on the
// command line or found in a named directory (sorted by name, not
// recursive). So every build compiles the targets, and ctest replays their
// seed corpora (fuzz/corpus/<Name>/) with the targets' own invariants,
// under the ASan/UBSan configuration too. A target aborts on a broken
// invariant; replaying nothing is an error, so a corpus that goes missing
// fails the test instead of passing it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

bool Replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", file.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_directory(arg, ec)) {
      for (const fs::directory_entry& e : fs::directory_iterator(arg, ec)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(arg);
    }
    if (ec) {
      std::fprintf(stderr, "%s: %s\n", arg.c_str(), ec.message().c_str());
      return 2;
    }
    for (const fs::path& f : files) {
      if (!Replay(f)) return 2;
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "usage: %s FILE|DIR...: replays each input once; found none\n", argv[0]);
    return 2;
  }
  std::printf("replayed %zu inputs\n", replayed);
  return 0;
}
