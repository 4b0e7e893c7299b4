// The baseline file of `kernelscope check`. See BaselineFile.h.
#include "BaselineFile.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "Files.h"

namespace ks {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kBaselineVersion = 1;

}  // namespace

json figuresJson(const KernelFigures& f) {
  json j = json::object();
  for (const FigureSpec& spec : kernelFigureSpecs())
    if (auto v = figureValue(f, spec.name))
      j[std::string(spec.name)] = *v == std::floor(*v) ? json(static_cast<int64_t>(*v)) : json(*v);
  j["block-size"] = f.blockSize;
  return j;
}

std::string readBaseline(const fs::path& file, const std::string& arch,
                         std::map<std::string, KernelFigures>& out) {
  FileText text = readRegularFile(file, uintmax_t{16} << 20);
  if (!text.ok()) return text.error;
  json j = json::parse(text.text, nullptr, false);
  if (j.is_discarded() || !j.is_object() ||
      j.value("kernelscope-baseline", 0) != kBaselineVersion || !j.contains("kernels") ||
      !j["kernels"].is_object())
    return "not a kernelscope baseline (write one with --bless)";
  if (j.value("arch", "") != arch)
    return "the baseline is for " + j.value("arch", std::string("?")) + ", this compile for " +
           arch + " (--arch " + j.value("arch", std::string("?")) +
           ", or --bless to write one for " + arch + ")";
  for (const auto& [kernel, figures] : j["kernels"].items()) {
    if (!figures.is_object()) return "kernel " + kernel + ": its figures must be an object";
    KernelFigures f;
    f.occupancy.reset();
    for (const auto& [name, value] : figures.items()) {
      if (!value.is_number() || value.get<double>() < 0)
        return "kernel " + kernel + ": " + name + " must be a number of at least 0";
      if (name == "block-size")
        f.blockSize = std::clamp(value.get<uint32_t>(), 1u, 1024u);
      else if (!setFigureValue(f, name, value.get<double>()))
        return "kernel " + kernel + ": unknown figure '" + name + "'";
    }
    out[kernel] = f;
  }
  return {};
}

std::string writeBaseline(const fs::path& file, const std::string& arch, int optLevel,
                          const std::map<std::string, KernelFigures>& figures) {
  json kernels = json::object();
  for (const auto& [name, f] : figures) kernels[name] = figuresJson(f);
  json j = {{"kernelscope-baseline", kBaselineVersion},
            {"arch", arch},
            {"opt-level", optLevel},
            {"kernels", kernels}};
  return writeFileAtomically(file, j.dump(2) + "\n");
}

}  // namespace ks
