// kernelscope/passes: the pipeline's pass list of a kernel on the wire.
#include <filesystem>

#include "Features.h"
#include "PassSummary.h"
#include "Uri.h"

namespace ks::server {

namespace {

/// The document's file as its reader knows it: from its crate's folder (`kern/src/lib.rs`),
/// or by its name when it compiles on its own.
std::string shownPath(const Snapshot& s) {
  const std::filesystem::path file(s.path);
  if (s.result->crateManifest.empty()) return file.filename().string();
  const std::filesystem::path crate = s.result->crateManifest.parent_path();
  const std::filesystem::path inCrate = file.lexically_relative(crate);
  if (inCrate.empty() || *inCrate.begin() == "..") return file.filename().string();
  return (crate.filename() / inCrate).string();
}

}  // namespace

lsp::PassesResult passesReplyOf(const Snapshot& s, const PassesResult& r,
                                std::optional<Stage> only) {
  lsp::PassesResult out;
  out.uri = lsp::makePassesUri(s.path, r.demangled);
  out.kernel = r.demangled;
  out.revision = s.revision;
  PassesResult shown = r;
  if (only) std::erase_if(shown.stages, [&](const StagePasses& sp) { return sp.stage != *only; });
  out.text =
      renderPasses(shown, passesTitle(shown, shownPath(s), s.result->arch, s.result->optLevel));
  for (const StagePasses& sp : shown.stages)
    for (const PassChange& c : sp.changes) out.passes.push_back(passInfoOf(c));
  return out;
}

}  // namespace ks::server
