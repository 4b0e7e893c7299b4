#include "Ncu.h"

#include <unistd.h>
#include <cstdlib>

#include "Process.h"
#include "TextUtil.h"

namespace ks::gpu {

namespace fs = std::filesystem;

const char* const kNcuKernelMetrics =
    "gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,"
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum";

namespace {

/// The quoted CSV records of `text`: lines starting with '"' (ncu quotes every field).
std::vector<std::vector<std::string>> csvRecords(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  for (std::string_view line : splitLines(text)) {
    if (line.empty() || line.front() != '"') continue;
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
          field += '"', ++i;
        else if (c == '"')
          quoted = false;
        else
          field += c;
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.push_back(std::move(field));
        field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(std::move(field));
    records.push_back(std::move(fields));
  }
  return records;
}

std::optional<double> number(const std::string& s) {
  if (s.empty() || s == "-" || s == "n/a") return std::nullopt;
  std::string clean;
  for (char c : s)
    if (c != ',') clean += c;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end == clean.c_str()) return std::nullopt;
  return v;
}

}  // namespace

std::string parseNcuSourceCsv(std::string_view text, NcuSourceProfile& out) {
  auto records = csvRecords(text);
  size_t header = 0;
  for (; header < records.size(); ++header) {
    const auto& r = records[header];
    if (r.size() >= 2 && r[0] == "Kernel Name") out.kernel = r[1];
    if (!r.empty() && r[0] == "Address") break;
  }
  if (header == records.size())
    return "ncu printed no source table (no \"Address\" header): was the kernel launched and "
           "profiled?";
  const auto& names = records[header];
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < names.size(); ++i) col.emplace(names[i], i);
  auto at = [&](const std::vector<std::string>& row, const char* name) -> double {
    auto it = col.find(name);
    if (it == col.end() || it->second >= row.size()) return 0;
    return number(row[it->second]).value_or(0);
  };
  if (!col.count("Source") || !col.count("Warp Stall Sampling (All Samples)"))
    return "ncu's source table lacks the Source or stall sampling columns";
  for (size_t r = header + 1; r < records.size(); ++r) {
    const auto& row = records[r];
    if (row.size() < 2 || row[0] == "Kernel Name" || row[0] == "Address")
      break;  // a second kernel's table
    NcuInstruction ins;
    ins.address = row[0];
    ins.source = row[col["Source"]];
    ins.stallSamples = at(row, "Warp Stall Sampling (All Samples)");
    ins.executed = at(row, "Instructions Executed");
    ins.threadsExecuted = at(row, "Thread Instructions Executed");
    ins.l2Sectors = at(row, "L2 Theoretical Sectors Global");
    ins.l2SectorsIdeal = at(row, "L2 Theoretical Sectors Global Ideal");
    ins.sharedConflicts = at(row, "L1 Conflicts Shared N-Way");
    ins.l2SectorsLocal = at(row, "L2 Theoretical Sectors Local");
    ins.divergentBranches = at(row, "Divergent Branches");
    for (const auto& [name, i] : col) {
      if (!name.starts_with("stall_") || name.find("(Not Issued)") != std::string::npos ||
          i >= row.size())
        continue;
      double v = number(row[i]).value_or(0);
      if (v != 0) ins.stalls[name.substr(6)] = v;
    }
    out.instructions.push_back(std::move(ins));
  }
  if (out.instructions.empty()) return "ncu's source table has no rows";
  return {};
}

std::string parseNcuMetricsCsv(std::string_view text, NcuKernelMetrics& out) {
  auto records = csvRecords(text);
  // The raw page: a header of metric names, a row of units, then one row per kernel.
  for (size_t h = 0; h + 2 < records.size() + 1 && h < records.size(); ++h) {
    const auto& names = records[h];
    bool isHeader = false;
    for (const auto& n : names) isHeader |= n == "gpu__time_duration.sum";
    if (!isHeader) continue;
    size_t valuesRow = h + 1;
    if (valuesRow < records.size() && !records[valuesRow].empty() && records[valuesRow][0].empty())
      ++valuesRow;  // units
    if (valuesRow >= records.size()) return "ncu's metrics table has no rows";
    const auto& units = records[h + 1];
    const auto& row = records[valuesRow];
    for (size_t i = 0; i < names.size() && i < row.size(); ++i) {
      auto v = number(row[i]);
      if (!v) continue;
      std::string unit = i < units.size() ? units[i] : "";
      if (names[i] == "gpu__time_duration.sum")
        out.durationNs = *v * (unit == "usecond"   ? 1e3
                               : unit == "msecond" ? 1e6
                               : unit == "second"  ? 1e9
                                                   : 1);
      else if (names[i] == "sm__warps_active.avg.pct_of_peak_sustained_active")
        out.achievedOccupancyPct = *v;
      else if (names[i] == "dram__throughput.avg.pct_of_peak_sustained_elapsed")
        out.dramThroughputPct = *v;
      else if (names[i] == "dram__bytes.sum")
        out.dramBytes = *v * (unit == "Kbyte"   ? 1e3
                              : unit == "Mbyte" ? 1e6
                              : unit == "Gbyte" ? 1e9
                                                : 1);
    }
    return {};
  }
  return "ncu printed no metrics table";
}

fs::path findNcu(const std::string& configured) {
  auto executable = [](const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; };
  if (!configured.empty()) return executable(configured) ? fs::path(configured) : fs::path();
  if (const char* home = std::getenv("CUDA_HOME"); home && executable(fs::path(home) / "bin/ncu"))
    return fs::path(home) / "bin/ncu";
  if (executable("/usr/local/cuda/bin/ncu")) return "/usr/local/cuda/bin/ncu";
  return findOnPath("ncu").value_or(fs::path());
}

std::vector<std::string> ncuArgv(const fs::path& ncu, const std::string& kernel, bool sourcePage,
                                 const std::vector<std::string>& program) {
  // --clock-control none: profile at the clocks the GPU runs at, as `run` times it.
  std::vector<std::string> argv = {
      ncu.string(), "--clock-control", "none", "-k", "regex:^" + kernel + "$", "-c", "1", "--csv"};
  if (sourcePage)
    argv.insert(argv.end(),
                {"--section", "SourceCounters", "--page", "source", "--print-source", "sass"});
  else
    argv.insert(argv.end(), {"--page", "raw", "--metrics", kNcuKernelMetrics});
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

}  // namespace ks::gpu
