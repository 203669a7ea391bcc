#include "bench/lab/MatrixRunner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "bench/lab/RunReport.h"
#include "bench/lab/Runner.h"
#include "bench/lab/TraceReplay.h"
#include "bench/trace/TraceFactory.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"
#include "tierlab/Version.h"

namespace tierlab {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "tierlab-matrix-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return "";
  return tmpl;
}

}  // namespace

Expected<nlohmann::json> RunMatrixCell(const MatrixCell& cell, const std::string& mode,
                                       const std::string& temp_dir) {
  const bool real = mode == "real";
  std::unique_ptr<Engine> engine;
  if (real) {
    engine = std::make_unique<RealEngine>();
  } else {
    engine = std::make_unique<SimEngine>();
  }
  BuildOptions bo;
  bo.real = real;
  bo.seed = cell.seed;
  bo.temp_dir = temp_dir;
  nlohmann::json j;
  {
    auto volume = BuildVolume(*engine, cell.layout, bo);
    if (!volume.ok()) {
      return MakeError("cell \"" + cell.label + "\": " + volume.error().message,
                       volume.error().exit_code);
    }
    const auto fail = [&cell](const Error& e) {
      return MakeError("cell \"" + cell.label + "\": " + e.message, e.exit_code);
    };
    if (cell.trace) {
      auto reader = OpenTrace(cell.trace->path, cell.trace->trace_options);
      if (!reader.ok()) return fail(reader.error());
      auto r = ReplayTrace(*engine, volume->top(), **reader, ReplayOptions{cell.trace->replay});
      if (!r.ok()) return fail(r.error());
      const Profile p = ReplayProfile(cell.trace->name, cell.trace->replay, *r);
      j = MakeRunJson(r->run, p, *volume, RunMeta{mode, cell.seed});
      j["replay"] = ReplayToJson(cell.trace->trace, (*reader)->format(), cell.trace->replay, *r);
    } else {
      auto r = RunWorkload(*engine, volume->top(), cell.profile);
      if (!r.ok()) return fail(r.error());
      j = MakeRunJson(*r, cell.profile, *volume, RunMeta{mode, cell.seed});
    }
  }
  nlohmann::json axes = nlohmann::json::object();
  for (const auto& [k, v] : cell.axes) axes[k] = v;
  nlohmann::json head = {{"index", cell.index},
                         {"id", cell.id},
                         {"label", cell.label},
                         {"layout_name", cell.layout_name},
                         {"profile_name", cell.profile_name},
                         {"axes", axes},
                         {"repeat", cell.repeat}};
  // Coordinates first, then the run (nlohmann::json sorts keys anyway; the
  // merge keeps the run's own fields).
  head.update(j);
  return head;
}

Expected<nlohmann::json> RunMatrix(const ExpandedMatrix& m, const MatrixRunOptions& o,
                                   MatrixRunStats* stats) {
  const bool real = m.spec.mode == "real";
  std::vector<const MatrixCell*> todo;
  for (const MatrixCell& c : m.cells) {
    if (o.shard.Contains(c.index)) todo.push_back(&c);
  }
  unsigned jobs = o.jobs;
  if (jobs == 0) jobs = real ? 1 : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(todo.size(), 1)));

  std::string temp_dir = o.temp_dir;
  std::string made_dir;
  if (real && temp_dir.empty()) {
    temp_dir = made_dir = MakeTempDir();
    if (temp_dir.empty()) return MakeError("cannot create a temp dir", kExitIo);
  }

  std::vector<nlohmann::json> results(todo.size());
  std::vector<std::uint64_t> ios(todo.size(), 0);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::optional<Error> first_error;
  std::size_t first_error_at = SIZE_MAX;
  std::size_t done = 0;
  std::map<std::size_t, const MatrixCell*> running;
  const auto t0 = Clock::now();

  auto worker = [&] {
    while (!failed.load()) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      const MatrixCell& cell = *todo[k];
      {
        std::lock_guard<std::mutex> lock(mu);
        running[cell.index] = &cell;
      }
      std::string cell_dir;
      if (real) {
        cell_dir =
            (std::filesystem::path(temp_dir) / ("cell" + std::to_string(cell.index))).string();
        std::error_code ec;
        std::filesystem::create_directories(cell_dir, ec);
      }
      const auto c0 = Clock::now();
      auto r = RunMatrixCell(cell, m.spec.mode, cell_dir);
      const double cell_wall = Since(c0);
      if (!cell_dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(cell_dir, ec);
      }
      std::lock_guard<std::mutex> lock(mu);
      running.erase(cell.index);
      if (!r.ok()) {
        // Keep the lowest-index error so the message does not depend on -j.
        if (cell.index < first_error_at) {
          first_error = r.error();
          first_error_at = cell.index;
        }
        failed.store(true);
        return;
      }
      ios[k] = r->at("jobs").at(0).value("issued_ios", std::uint64_t{0});
      results[k] = std::move(r.value());
      ++done;
      if (o.progress) {
        MatrixProgress p;
        p.done = done;
        p.total = todo.size();
        p.elapsed_s = Since(t0);
        p.finished = &cell;
        p.cell_wall_s = cell_wall;
        p.result = &results[k];
        for (const auto& [i, c] : running) p.running.push_back(c);
        o.progress(p);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < jobs; ++i) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (!made_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(made_dir, ec);
  }
  if (first_error) {
    return MakeError(m.spec.source + ": " + first_error->message, first_error->exit_code);
  }

  nlohmann::json out;
  out["tierlab_version"] = kVersion;
  out["matrix"] = m.spec.raw;
  out["matrix_name"] = m.spec.name;
  out["matrix_hash"] = m.hash;
  out["cell_count"] = m.cells.size();
  out["shard"] = o.shard.ToString();
  out["cells"] = nlohmann::json::array();
  for (auto& r : results) out["cells"].push_back(std::move(r));
  if (stats != nullptr) {
    stats->wall_s = Since(t0);
    stats->cells = todo.size();
    stats->jobs = jobs;
    stats->simulated_ios = 0;
    for (auto n : ios) stats->simulated_ios += n;
  }
  return out;
}

Expected<void> CheckResultsJson(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object()) return MakeError(name + ": not a tierlab results document (not an object)");
  for (const char* key : {"matrix_hash", "cells"}) {
    if (!j.contains(key)) {
      return MakeError(name + ": not a tierlab matrix results document (no \"" + key +
                       "\"; write one with tierlab matrix -o)");
    }
  }
  if (!j.at("cells").is_array()) return MakeError(name + ": cells: must be an array");
  const auto& cells = j.at("cells");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    const std::string where = name + ": cells[" + std::to_string(i) + "]";
    if (!c.is_object() || !c.contains("index") || !c.at("index").is_number_unsigned() ||
        !c.contains("id") || !c.contains("jobs") || !c.at("jobs").is_array() ||
        c.at("jobs").empty()) {
      return MakeError(where + ": missing index, id or jobs");
    }
  }
  return {};
}

Expected<nlohmann::json> MergeMatrixResults(const std::vector<nlohmann::json>& parts,
                                            const std::vector<std::string>& names,
                                            std::size_t* missing) {
  if (parts.empty()) return MakeError("merge: no results files given");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto ok = CheckResultsJson(parts[i], names[i]);
    if (!ok.ok()) return ok.error();
  }
  const std::string hash = parts[0].at("matrix_hash").get<std::string>();
  std::map<std::size_t, std::pair<const nlohmann::json*, std::size_t>> by_index;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string h = parts[i].at("matrix_hash").get<std::string>();
    if (h != hash) {
      return MakeError("merge: " + names[i] + " is from a different matrix (hash " + h + ", " +
                       names[0] + " has " + hash + ")");
    }
    for (const auto& c : parts[i].at("cells")) {
      const std::size_t idx = c.at("index").get<std::size_t>();
      auto [it, inserted] = by_index.emplace(idx, std::make_pair(&c, i));
      if (!inserted) {
        return MakeError("merge: cell " + std::to_string(idx) + " (" + c.value("label", "?") +
                         ") is in both " + names[it->second.second] + " and " + names[i]);
      }
    }
  }
  // Every header of one matrix is the same but for "shard"; take the
  // lowest shard's so the output does not depend on the argument order.
  std::size_t head = 0;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].value("shard", "") < parts[head].value("shard", "")) head = i;
  }
  nlohmann::json out = parts[head];
  out["shard"] = "merged";
  out["cells"] = nlohmann::json::array();
  for (const auto& [idx, c] : by_index) out["cells"].push_back(*c.first);
  const std::size_t total = parts[0].value("cell_count", by_index.size());
  if (missing != nullptr) *missing = total > by_index.size() ? total - by_index.size() : 0;
  return out;
}

}  // namespace tierlab
