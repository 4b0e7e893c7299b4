// Parser for `ptxas -v` (resource usage per function) and ptxas errors and warnings.
#include <map>

#include "Diagnostics.h"
#include "TextUtil.h"

namespace ks {

namespace {

/// Reads "N bytes NAME" / "N NAME" items separated by commas into `out`.
void readQuantities(std::string_view s, KernelResources& out) {
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = text::trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    auto n = text::takeUint(item);
    if (!n) continue;
    item = text::trim(item);
    text::consume(item, "bytes ");
    if (item == "registers")
      out.registers = *n;
    else if (item == "barriers" || item == "barrier")
      out.barriers = *n;
    else if (item == "stack frame")
      out.stackFrame = *n;
    else if (item == "spill stores")
      out.spillStores = *n;
    else if (item == "spill loads")
      out.spillLoads = *n;
    else if (item == "smem")
      out.sharedMemory = *n;
    else if (item == "lmem")
      out.localMemory = *n;
    else if (item.starts_with("cmem[0]"))
      out.constantMemory = *n;
  }
}

std::string quoted(std::string_view s) {
  size_t a = s.find('\'');
  size_t b = a == std::string_view::npos ? a : s.find('\'', a + 1);
  return b == std::string_view::npos ? std::string{} : std::string(s.substr(a + 1, b - a - 1));
}

}  // namespace

PtxasReport parsePtxasReport(std::string_view input) {
  PtxasReport report;
  std::map<std::string, size_t> index;
  auto function = [&](const std::string& name) -> KernelResources& {
    auto [it, inserted] = index.emplace(name, report.functions.size());
    if (inserted) {
      report.functions.emplace_back();
      report.functions.back().name = name;
    }
    return report.functions[it->second];
  };

  KernelResources* current = nullptr;
  for (std::string_view line : splitLines(input)) {
    std::string_view t = text::trim(line);
    // "ptxas info    : MESSAGE", "ptxas error   : MESSAGE",
    // "ptxas /path/k.ptx, line 12; error   : MESSAGE"
    if (!t.starts_with("ptxas")) {
      if (current && t.find("stack frame") != std::string_view::npos) readQuantities(t, *current);
      continue;
    }
    size_t colon = t.find(" : ");
    if (colon == std::string_view::npos) colon = t.find(": ");
    if (colon == std::string_view::npos) continue;
    std::string_view head = t.substr(0, colon);
    std::string_view msg = text::trim(t.substr(t.find(':', colon) + 1));

    if (head.find("info") != std::string_view::npos) {
      std::string_view m = msg;
      if (text::consume(m, "Compiling entry function ")) {
        auto& k = function(quoted(m));
        k.isEntry = true;
        if (size_t f = m.find("for '"); f != std::string_view::npos)
          k.arch = quoted(m.substr(f + 3));
        current = &k;
      } else if (text::consume(m, "Compiling function ")) {
        current = &function(quoted(m));
      } else if (text::consume(m, "Function properties for ")) {
        current = &function(std::string(text::trim(m)));
      } else if (text::consume(m, "Used ")) {
        if (current) readQuantities(m, *current);
      }
      continue;
    }

    Diagnostic d;
    d.source = "ptxas";
    d.severity =
        head.find("warning") != std::string_view::npos ? Severity::Warning : Severity::Error;
    d.message = std::string(msg);
    // "ptxas /path/k.ptx, line 12; error" names a line of the PTX, not of the source.
    if (size_t l = head.find(", line "); l != std::string_view::npos) {
      std::string_view num = head.substr(l + 7);
      d.ptxLine = text::takeUint(num);
    }
    report.diagnostics.push_back(std::move(d));
  }
  return report;
}

}  // namespace ks
