// ResultStore: compile results kept on disk between runs of the CLI, so that a second
// `kernelscope explain` (`run`, `profile`, `passes`) of an unchanged kernel with the same
// options and toolchain does not compile again.
//
// An entry is a directory `<dir>/<key>/` holding one file: the result serialized whole
// (artifacts, locations, diagnostics, remarks, kernels: the line map is rebuilt from the
// artifacts, the occupancy from the resources) with the content digests of the other files
// it was compiled from (modules, path dependencies, Cargo.toml), checked on every load as the
// in-memory cache checks them. One digest covers all of it; the file is read without
// blocking and within a bound (a FIFO or a link to /dev/zero in its place is refused). The key is
// the engine's (compileKey: text, options, toolchain fingerprint) joined with this kernelscope
// binary's identity, so a rebuilt kernelscope never reads another's results (and the environment
// that decides the tools: compileEnvironment). Entries are written whole (staged, then renamed) and
// kept within a bound by evictLeastRecentlyUsed, which removes only directories that are this
// store's entries; a damaged or unreadable entry is ignored (recompiled). A write that fails (a
// full disk, a file-size limit) leaves nothing behind and is said once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "Compile.h"
#include "Passes.h"

namespace ks {

/// `result` as bytes, and back (nullopt for bytes that are not one, whole).
std::string serializeResult(const CompileResult& result);
std::optional<CompileResult> deserializeResult(std::string_view bytes);
/// The same for a kernel's pass-by-pass view (Passes.h).
std::string serializePasses(const PassesResult& result);
std::optional<PassesResult> deserializePasses(std::string_view bytes);

class ResultStore {
 public:
  ResultStore(std::filesystem::path dir, uintmax_t maxBytes)
      : dir_(std::move(dir)), maxBytes_(maxBytes) {}

  /// The result stored under `key`, when it is whole and its other files are unchanged.
  std::shared_ptr<const CompileResult> load(const std::string& key) const;
  /// Stores a result that produced code; returns why it could not be written ("" when it was
  /// or when it is not kept: a failure, a cancelled compile).
  std::string save(const std::string& key, const CompileResult& result) const;
  /// The same for a kernel's pass-by-pass view (Engine::passes); only a view without an error
  /// whose source files are known is kept.
  std::optional<PassesResult> loadPasses(const std::string& key) const;
  std::string savePasses(const std::string& key, const PassesResult& result) const;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  /// An entry's bytes, when it is whole and the files it lists are unchanged.
  std::optional<std::string> loadEntry(const std::string& key) const;
  std::string saveEntry(const std::string& key, const std::string& bytes,
                        const std::vector<std::filesystem::path>& sourceFiles) const;

  std::filesystem::path dir_;
  uintmax_t maxBytes_;
};

}  // namespace ks
