// The editor's side of a GPU profile and of launch specs, computed from a ShownProfile or a
// Snapshot (GpuProfile.cpp): the hot lines' inlay hints and hover counters, the heat of the
// source lines and of the PTX/SASS views' lines, the Run / Profile / launch spec lenses, and
// the problems of the launch specs written in a document as diagnostics with quick fixes.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Extensions.h"
#include "GpuRuns.h"
#include "JsonRpc.h"
#include "Protocol.h"
#include "SourceText.h"
#include "Workspace.h"

namespace ks::server {

/// A profile's result for the editor: the document's hot lines (0-based) with their share
/// and headline, and per view stage the runs of artifact lines with the share of the source
/// line each maps to (through the line map, inline-aware), as lines of the views with
/// `filters`. `current`: the document's text is still the text profiled (else nothing is
/// shown).
nlohmann::json profileEditorJson(const ShownProfile&, const std::string& uri, bool current,
                                 const lsp::ArtifactFilters& filters);

/// "38% stalls · long scoreboard" at the end of each line of `range` with at least 1% of the
/// kernel's stall samples, each after its change since the last profile when there is one
/// (profileDeltaHint).
std::vector<lsp::InlayHint> profileHints(const ShownProfile&, const lsp::Range&, PositionEncoding);

/// "−40% stalls since last profile" for 0-based `line`, when the profile has a baseline, the
/// line was or is hot (1% of the stall samples) and its stall samples changed by 5% or more
/// (or it is new); else empty.
std::string profileDeltaHint(const ShownProfile&, int line);

/// The counters of 0-based `line` in words, and its change since the last profile, for its
/// hover; empty when it has neither.
std::string profileHoverText(const ShownProfile&, int line);

/// The kernels with a launch spec in each crate's Cargo.toml
/// (`[package.metadata.kernelscope.launch.KERNEL]`), read on the compile's worker after each
/// compile of the crate (a change to Cargo.toml compiles again), so that the lenses never
/// read a file on the io thread.
class CrateLaunchSpecs {
 public:
  /// Reads `manifest` (on a worker thread).
  void read(const std::filesystem::path& manifest);
  /// Whether `manifest`, as last read, has a launch spec for `kernel` (no I/O).
  bool has(const std::filesystem::path& manifest, const std::string& kernel) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::filesystem::path, std::set<std::string>> kernels_;
};

/// On each kernel of the document with a launch spec (in its comments or its crate's
/// Cargo.toml, as `crateSpecs` last read it) "▶ Run" and "Profile" (the client commands
/// kernelscope.run and kernelscope.profile); on the others "Add launch spec"
/// (kernelscope.insertLaunchSpec).
std::vector<lsp::CodeLens> gpuLenses(const Snapshot&, PositionEncoding,
                                     const CrateLaunchSpecs& crateSpecs);

/// The `// kernelscope:` line to insert above `kernel` in `s` (a spec skeleton from its real
/// parameters) and where; nullopt with `problem` when the kernel is unknown.
struct SpecInsertion {
  lsp::Position at;
  std::string text;
};
std::optional<SpecInsertion> specInsertion(const Snapshot& s, const std::string& kernel,
                                           PositionEncoding, std::string& problem);

/// A problem of a launch spec written in a document as the editor shows it: an error at its
/// part of the spec line (the whole line when the parser does not know the part), source
/// "kernelscope", code "spec-..." (gpu::specErrorCode), with its quick fix when one is obvious.
struct SpecDiagnostic {
  lsp::Diagnostic diagnostic;
  std::optional<lsp::CodeAction> fix;
};
/// The problems of the launch specs written above the kernels of `s`'s document
/// (gpu::checkWrittenSpec), positioned in the text that compiled; a kernel that its crate's
/// Cargo.toml also gives a spec (as `crateSpecs` last read it) is told only the problems
/// within its written items.
std::vector<SpecDiagnostic> specDiagnostics(const Snapshot& s, PositionEncoding,
                                            const CrateLaunchSpecs& crateSpecs);

}  // namespace ks::server
