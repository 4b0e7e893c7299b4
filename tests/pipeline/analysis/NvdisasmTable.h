// nvdisasm's own answers for the tests that check kernelscope's against them: a run of
// nvdisasm over a cubin, and its life-range table (`-plr -lrm count`) read with regular
// expressions of the tests' own, independent of the pipeline's readers.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "Costs.h"
#include "TestSupport.h"

namespace ks::test {

/// Runs nvdisasm with `flags` on `cubin` (written to a temporary file).
inline std::string nvdisasm(const std::string& cubin, std::vector<std::string> flags) {
  TempDir dir("nvdisasm-table");
  const std::filesystem::path file = dir.path() / "k.cubin";
  std::ofstream(file, std::ios::binary) << cubin;
  ProcessSpec p;
  p.argv = {toolchain().nvdisasm.path.string()};
  p.argv.insert(p.argv.end(), flags.begin(), flags.end());
  p.argv.push_back(file.string());
  ProcessResult r = runProcess(p);
  REQUIRE_MESSAGE(r.ok(), r.err);
  return r.out;
}

/// nvdisasm with `flags` on each kernel's cubin, one listing after another in the kernels'
/// order (the SASS view lists a function several kernels call with the first); empty when a
/// kernel has no loadable cubin.
inline std::string nvdisasmOfKernels(const CompileResult& r,
                                     const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& k : r.kernels) {
    const std::string* cubin = cubinOf(r, k.symbol);
    if (!cubin) return {};
    out += nvdisasm(*cubin, flags);
  }
  return out;
}

/// The code of every function in the kernels' cubins, each from the first kernel's that has
/// it, as the SASS view lists them.
inline CubinFunctions codeOfKernels(const CompileResult& r) {
  CubinFunctions code;
  for (const auto& k : r.kernels)
    if (const std::string* cubin = cubinOf(r, k.symbol))
      for (auto& [name, fn] : cubinFunctions(*cubin)) code.try_emplace(name, fn);
  return code;
}

/// nvdisasm's counts of one instruction: general, predicate and uniform registers.
struct LiveCounts {
  int gpr = 0, pred = 0, ugpr = 0;
};

/// (function, address) -> the counts nvdisasm prints in its table's columns (named by its
/// header row: GPR, PRED, UGPR), read with regular expressions of this test's own.
inline std::map<std::pair<std::string, uint32_t>, LiveCounts> nvdisasmLiveCounts(
    const std::string& plr) {
  std::map<std::pair<std::string, uint32_t>, LiveCounts> out;
  static const std::regex section(R"(//-+ \.text\.(\S+))");
  static const std::regex row(R"(/\*([0-9a-f]{4,})\*/.*// \|(.*)$)");
  static const std::regex header(R"(// \|\s*GPR\s*\|(.*)$)");
  static const std::regex cell(R"(([^|]*)\|)");
  std::string fn;
  std::vector<std::string> columns;
  auto cells = [](const std::string& s) {
    std::vector<std::string> v;
    for (std::sregex_iterator it(s.begin(), s.end(), cell), end; it != end; ++it) {
      std::string c = (*it)[1];
      c.erase(0, c.find_first_not_of(' '));
      c.erase(c.find_last_not_of(' ') + 1);
      v.push_back(c);
    }
    return v;
  };
  std::istringstream in(plr);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, section)) {
      fn = m[1];
    } else if (std::regex_search(line, m, header)) {
      columns = cells(m[1]);
      columns.insert(columns.begin(), "GPR");
    } else if (std::regex_search(line, m, row)) {
      const std::vector<std::string> v = cells(m[2]);
      LiveCounts c;
      for (size_t i = 0; i < v.size() && i < columns.size(); ++i) {
        const int n = v[i].empty() ? 0 : std::stoi(v[i]);
        if (columns[i] == "GPR") c.gpr = n;
        if (columns[i] == "PRED") c.pred = n;
        if (columns[i] == "UGPR") c.ugpr = n;
      }
      // A function listed again (from a later kernel's cubin) keeps its first counts.
      out.try_emplace({fn, static_cast<uint32_t>(std::stoul(m[1], nullptr, 16))}, c);
    }
  }
  return out;
}

inline std::optional<uint32_t> addressOfLine(std::string_view t) {
  static const std::regex addr(R"(/\*([0-9a-f]{4,})\*/)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(t.begin(), t.end(), m, addr)) return std::nullopt;
  return static_cast<uint32_t>(std::stoul(m[1].str(), nullptr, 16));
}

}  // namespace ks::test
