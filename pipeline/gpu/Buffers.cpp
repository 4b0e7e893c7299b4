#include "Buffers.h"

#include <functional>
#include <regex>

#include "Files.h"
#include "SpecText.h"

namespace ks::gpu {

namespace fs = std::filesystem;

namespace {
constexpr uint64_t kMaxNpyHeader = 64 * 1024;

/// uniform's arguments: LO and HI, and `seed = S` anywhere among them.
std::string readUniform(const std::vector<std::string>& args,
                        const std::function<std::optional<double>(const std::string&)>& number,
                        Fill& fill) {
  std::vector<std::string> positional;
  for (const auto& a : args) {
    if (!a.starts_with("seed")) {
      positional.push_back(a);
      continue;
    }
    size_t eq = a.find('=');
    if (eq == std::string::npos) return "write seed = N";
    auto s = number(a.substr(eq + 1));
    if (!s) return {};
    if (!isWhole(*s) || *s < 0) return "the seed is a whole number";
    fill.seed = static_cast<uint64_t>(*s);
  }
  if (positional.empty()) return {};
  if (positional.size() != 2) return "uniform(LO, HI, seed = S)";
  auto lo = number(positional[0]), hi = number(positional[1]);
  if (lo && hi) fill.lo = *lo, fill.hi = *hi;
  return {};
}
}  // namespace

std::optional<BufferValue> bufferValue(std::string_view value) {
  static const std::regex bufferRe(R"(^([A-Za-z_][\w:]*)\s*\[(.*)\]\s*(.*)$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(value.begin(), value.end(), m, bufferRe)) return std::nullopt;
  return BufferValue{m[1].str(), m[2].str(), m[3].str()};
}

std::string readContents(std::string contents, const NameLookup& lookup, Fill& fill,
                         std::string& patternText) {
  static const std::regex callRe(R"(^([a-z]+)\s*(?:\((.*)\))?$)");
  std::smatch c;
  if (contents.empty()) contents = "zeros";
  if (!std::regex_match(contents, c, callRe))
    return "unknown contents '" + contents + "' " + kContentsHelp;
  std::string kind = c[1].str();
  std::vector<std::string> args;
  if (c[2].matched && !c[2].str().empty()) args = splitTopLevel(c[2].str(), ',');
  std::string problem;
  auto number = [&](const std::string& text) -> std::optional<double> {
    std::string err;
    auto v = evaluateExpression(text, lookup, err);
    if (!v && problem.empty()) problem = err;
    return v;
  };
  if (kind == "zeros" || kind == "ones" || kind == "iota") {
    fill.kind = kind == "zeros"  ? Fill::Kind::Zeros
                : kind == "ones" ? Fill::Kind::Ones
                                 : Fill::Kind::Iota;
    if (!args.empty()) return kind + " takes no arguments";
  } else if (kind == "fill") {
    if (args.size() != 1) return "fill takes one value, fill(2.5)";
    // A struct's value (`fill(Params { ... })`) is the caller's to lay out.
    if (args[0].find('{') != std::string::npos || args[0].starts_with("[")) {
      fill.kind = Fill::Kind::Pattern;
      patternText = args[0];
      return {};
    }
    fill.kind = Fill::Kind::Constant;
    if (auto v = number(args[0])) fill.value = *v;
  } else if (kind == "uniform") {
    fill.kind = Fill::Kind::Uniform;
    if (std::string why = readUniform(args, number, fill); !why.empty()) return why;
  } else if (kind == "file") {
    fill.kind = Fill::Kind::File;
    std::string path = args.size() == 1 ? args[0] : "";
    if (path.size() < 2 || path.front() != '"' || path.back() != '"')
      return "file(\"data/x.npy\") takes one quoted path";
    fill.file = path.substr(1, path.size() - 2);
  } else {
    return "unknown contents '" + kind + "' " + kContentsHelp;
  }
  return problem;
}

std::string readBufferFile(const ArgPlan& arg, const fs::path& specDir, const fs::path& root,
                           std::string& data) {
  const std::string type =
      arg.typeName.empty() ? std::string(elemTypeName(arg.elem)) : arg.typeName;
  std::error_code ec;
  fs::path path =
      fs::path(arg.fill.file).is_absolute() ? fs::path(arg.fill.file) : specDir / arg.fill.file;
  fs::path real = fs::weakly_canonical(path, ec);
  fs::path realRoot = fs::weakly_canonical(root, ec);
  auto rel = real.lexically_relative(realRoot);
  if (ec || rel.empty() || *rel.begin() == "..")
    return "'" + arg.fill.file + "' is outside the workspace (" + root.string() +
           "): a spec reads files inside it only";
  if (!fs::is_regular_file(real, ec)) return "'" + arg.fill.file + "' is not a regular file";
  uint64_t size = fs::file_size(real, ec);
  uint64_t want = arg.byteSize();
  bool npy = real.extension() == ".npy";
  if (size > want + (npy ? kMaxNpyHeader : 0) || size > kMaxBufferBytes)
    return "'" + arg.fill.file + "' holds " + std::to_string(size) +
           " bytes, more than the buffer's " + std::to_string(want);
  FileText read = readRegularFile(real, kMaxBufferBytes);
  if (!read.ok()) return "cannot read '" + arg.fill.file + "'";
  std::string bytes = std::move(read.text);
  if (npy) {
    // NPY 1.0/2.0: magic, version, header length, a Python dict literal with
    // descr/fortran_order/shape.
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
      return "'" + arg.fill.file + "' is not a .npy file";
    unsigned major = static_cast<unsigned char>(bytes[6]);
    size_t headerLen = 0, start = 0;
    if (major == 1) {
      headerLen =
          static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
      start = 10;
    } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
      headerLen = 0;
      for (int i = 3; i >= 0; --i)
        headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[8 + i]);
      start = 12;
    } else {
      return "'" + arg.fill.file + "': unknown .npy version";
    }
    if (start + headerLen > bytes.size()) return "'" + arg.fill.file + "': truncated .npy header";
    std::string header = bytes.substr(start, headerLen);
    std::smatch m;
    if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')")))
      return "'" + arg.fill.file + "': the .npy header has no dtype";
    std::string descr = m[1].str();
    if (arg.elem == ElemType::Record)
      return "'" + arg.fill.file + "': a buffer of " + type + " reads a raw file, not a .npy";
    if (descr != elemTypeNumpy(arg.elem) &&
        !(descr.size() == 3 && descr[0] == '=' &&
          descr.substr(1) == std::string(elemTypeNumpy(arg.elem)).substr(1)))
      return "'" + arg.fill.file + "' holds " + descr + ", the buffer is " + type + " (" +
             std::string(elemTypeNumpy(arg.elem)) + ")";
    if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)")))
      return "'" + arg.fill.file + "' is in Fortran order: save it C-contiguous";
    bytes.erase(0, start + headerLen);
    if (bytes.size() != want)
      return "'" + arg.fill.file + "' holds " + std::to_string(bytes.size() / arg.elementBytes()) +
             " elements, the buffer " + std::to_string(arg.count);
  } else if (bytes.size() != want) {
    return "'" + arg.fill.file + "' holds " + std::to_string(bytes.size()) + " bytes, the buffer " +
           std::to_string(want) + " (" + std::to_string(arg.count) + " x " + type + ")";
  }
  data = std::move(bytes);
  return {};
}

}  // namespace ks::gpu
