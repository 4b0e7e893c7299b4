// The on-disk cache of toolchain discovery: see internal/ToolchainCache.h.
#include "ToolchainCache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "Files.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

// Bumped when the stored shape changes: an older file is then simply not used.
constexpr int kFormat = 2;

/// A path's state as far as discovery is concerned: the link itself and what it points to
/// (type, size, modification time in ns, inode), or that it is absent.
std::string pathState(const fs::path& p) {
  auto one = [](const struct stat& st) {
    return std::to_string(st.st_mode) + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
           std::to_string(st.st_ino);
  };
  struct stat link {
  }, target{};
  if (::lstat(p.c_str(), &link) != 0) return "absent";
  std::string state = one(link);
  if (S_ISLNK(link.st_mode))
    state += ::stat(p.c_str(), &target) == 0 ? "->" + one(target) : "->absent";
  return state;
}

nlohmann::json toolJson(const ToolInfo& t) {
  return {{"name", t.name},
          {"path", t.path.string()},
          {"version", t.version},
          {"problem", t.problem},
          {"fix", t.fix}};
}

ToolInfo toolFrom(const nlohmann::json& j) {
  ToolInfo t;
  t.name = j.at("name").get<std::string>();
  t.path = j.at("path").get<std::string>();
  t.version = j.at("version").get<std::string>();
  t.problem = j.at("problem").get<std::string>();
  t.fix = j.at("fix").get<std::string>();
  return t;
}

}  // namespace

std::optional<Toolchain> loadCachedToolchain(const fs::path& file) {
  const FileText stored = readRegularFile(file);
  if (!stored.ok()) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(stored.text);
    if (j.at("format").get<int>() != kFormat) return std::nullopt;
    for (const auto& [path, state] : j.at("witnesses").items())
      if (pathState(path) != state.get<std::string>()) return std::nullopt;  // stale
    Toolchain tc;
    tc.rustc = toolFrom(j.at("rustc"));
    tc.rustcRelease = j.at("rustcRelease").get<std::string>();
    tc.rustcLlvm = j.at("rustcLlvm").get<std::string>();
    tc.rustSrc = j.at("rustSrc").get<std::string>();
    tc.sysroot = toolFrom(j.at("sysroot"));
    tc.ptxas = toolFrom(j.at("ptxas"));
    tc.nvdisasm = toolFrom(j.at("nvdisasm"));
    tc.cudaRelease = j.at("cudaRelease").get<std::string>();
    tc.nvcc = toolFrom(j.at("nvcc"));
    tc.cacheDir = j.at("cacheDir").get<std::string>();
    return tc;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // damaged or from another kernelscope: discover afresh
  }
}

void storeCachedToolchain(const fs::path& file, const Toolchain& tc,
                          const DiscoveryWitnesses& witnesses) {
  nlohmann::json states = nlohmann::json::object();
  for (const fs::path& p : witnesses.paths()) states[p.string()] = pathState(p);
  const nlohmann::json j = {{"format", kFormat},
                            {"witnesses", std::move(states)},
                            {"rustc", toolJson(tc.rustc)},
                            {"rustcRelease", tc.rustcRelease},
                            {"rustcLlvm", tc.rustcLlvm},
                            {"rustSrc", tc.rustSrc.string()},
                            {"sysroot", toolJson(tc.sysroot)},
                            {"ptxas", toolJson(tc.ptxas)},
                            {"nvdisasm", toolJson(tc.nvdisasm)},
                            {"cudaRelease", tc.cudaRelease},
                            {"nvcc", toolJson(tc.nvcc)},
                            {"cacheDir", tc.cacheDir.string()}};
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return;
  // A path that is not UTF-8 is stored with U+FFFD: its entry never matches, so discovery
  // simply runs afresh.
  writeFileAtomically(file, j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace ks
