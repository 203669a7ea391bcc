#include "bench/lab/MatrixRunner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "bench/lab/RunCell.h"
#include "tiering/core/QuotedText.h"
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

Expected<nlohmann::json> RunHookedCell(const MatrixRunOptions& o, MatrixCell& cell,
                                       const std::string& mode, const std::string& dir) {
  auto named = [&cell](const Error& e) {
    return Error{"cell " + QuotedText(cell.label, '"', 256) + ": " + e.message, e.kind};
  };
  if (o.before_cell) {
    auto b = o.before_cell(cell);
    if (!b.ok()) return named(b.error());
  }
  auto r = RunMatrixCell(cell, mode, dir, o.stop);
  if (r.ok() && o.after_cell) {
    auto a = o.after_cell(cell, *r);
    if (!a.ok()) return named(a.error());
  }
  return r;
}

}  // namespace

Expected<nlohmann::json> RunMatrixCell(const MatrixCell& cell, const std::string& mode,
                                       const std::string& temp_dir,
                                       const std::atomic<bool>* cancel) {
  auto kind = ParseEngineKind(mode);
  if (!kind.ok()) return kind.error();
  RunSettings s;
  s.engine = *kind;
  s.build_seed = cell.seed;
  s.reported_seed = cell.seed;
  s.device_dir = temp_dir;
  s.cancel = cancel;
  const Workload workload =
      cell.trace ? Workload{*cell.trace} : Workload{std::vector<Profile>{cell.profile}};
  auto runs = RunCell(cell.layout, workload, s);
  if (!runs.ok()) {
    return MakeError("cell " + QuotedText(cell.label, '"', 256) + ": " + runs.error().message,
                     runs.error().kind);
  }
  nlohmann::json j = std::move(runs->front().json);
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

nlohmann::json MakeResultsHeader(const MatrixPlan& plan, const std::string& hash,
                                 const Shard& shard) {
  nlohmann::json out;
  out["tierlab_version"] = kVersion;
  out["matrix"] = plan.spec().raw;
  out["matrix_name"] = plan.spec().name;
  out["matrix_hash"] = hash;
  out["cell_count"] = plan.size();
  out["shard"] = shard.ToString();
  return out;
}

Expected<void> RunMatrixInto(const MatrixPlan& plan, const MatrixRunOptions& o,
                             ResultsFile& results, MatrixRunStats* stats) {
  const MatrixSpec& spec = plan.spec();
  const bool real = spec.mode == "real";
  const auto skipped = [&o](std::uint64_t k) { return o.skip != nullptr && o.skip->count(k) != 0; };
  const auto wanted = [&o, skipped](std::uint64_t k) { return o.shard.Contains(k) && !skipped(k); };
  std::uint64_t total = plan.ShardSize(o.shard);
  if (o.skip != nullptr) {
    for (std::uint64_t k : *o.skip) total -= o.shard.Contains(k) && k < plan.size() ? 1 : 0;
  }
  unsigned jobs = o.jobs;
  if (jobs == 0) jobs = real ? 1 : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(total, 1)));

  std::string temp_dir = o.temp_dir;
  std::string made_dir;
  if (real && temp_dir.empty() && total > 0) {
    temp_dir = made_dir = MakeTempDir();
    if (temp_dir.empty()) return MakeError("cannot create a temp dir", ErrorKind::kIo);
  }

  MatrixPlan::Cursor cursor = plan.Cells(wanted);
  std::mutex mu;  // guards everything below, and the cursor
  std::condition_variable workers_done;
  unsigned active = jobs;
  bool failed = false;
  std::optional<Error> first_error;
  std::size_t first_error_at = SIZE_MAX;
  std::uint64_t done = 0;
  std::uint64_t ios = 0;
  std::map<std::size_t, const MatrixCell*> running;
  nlohmann::json last;
  std::string last_label;
  const auto t0 = Clock::now();
  const auto stopping = [&o] { return o.stop != nullptr && o.stop->load(); };

  auto worker = [&] {
    while (true) {
      MatrixCell cell;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (failed || stopping()) break;
        auto more = cursor.Next(&cell);
        if (!more.ok()) {
          // ScanMatrix expanded every cell before; defensive. The message
          // names the matrix file already.
          if (!first_error) first_error = more.error();
          failed = true;
          break;
        }
        if (!*more) break;
        running[cell.index] = &cell;
      }
      std::string cell_dir;
      if (real) {
        cell_dir =
            (std::filesystem::path(temp_dir) / ("cell" + std::to_string(cell.index))).string();
        std::error_code ec;
        std::filesystem::create_directories(cell_dir, ec);
      }
      auto r = RunHookedCell(o, cell, spec.mode, cell_dir);
      if (!cell_dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(cell_dir, ec);
      }
      std::lock_guard<std::mutex> lock(mu);
      running.erase(cell.index);
      if (!r.ok()) {
        if (stopping()) continue;  // abandoned, not failed
        // Keep the lowest-index error so the message does not depend on -j.
        if (cell.index < first_error_at) {
          first_error = MakeError(spec.source + ": " + r.error().message, r.error().kind);
          first_error_at = cell.index;
        }
        failed = true;
        break;
      }
      ios += r->at("jobs").at(0).value("issued_ios", std::uint64_t{0});
      results.Add(*r);
      last = std::move(r.value());
      last_label = cell.label;
      ++done;
    }
    std::lock_guard<std::mutex> lock(mu);
    if (--active == 0) workers_done.notify_all();
  };
  auto progress = [&] {
    MatrixProgress p;
    p.done = done;
    p.total = total;
    p.elapsed_s = Since(t0);
    for (const auto& [i, c] : running) p.running.push_back(c);
    p.last = last.is_null() ? nullptr : &last;
    p.last_label = last_label;
    return p;
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < jobs; ++i) threads.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mu);
    const auto tick = std::chrono::duration<double>(std::max(o.tick_s, 0.01));
    while (active > 0) {
      workers_done.wait_for(lock, tick);
      if (o.tick) o.tick(progress(), results);
    }
  }
  for (auto& t : threads) t.join();
  if (!made_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(made_dir, ec);
  }
  if (stats != nullptr) {
    stats->wall_s = Since(t0);
    stats->cells = done;
    stats->jobs = jobs;
    stats->simulated_ios = ios;
    stats->stopped = stopping() && done < total;
  }
  if (first_error) return *first_error;
  return {};
}

Expected<nlohmann::json> RunMatrix(const MatrixPlan& plan, const std::string& hash,
                                   const MatrixRunOptions& options, MatrixRunStats* stats) {
  ResultsFile results(MakeResultsHeader(plan, hash, options.shard));
  auto r = RunMatrixInto(plan, options, results, stats);
  if (!r.ok()) return r.error();
  return results.Json();
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
