// Settings: what the editor chose (initializationOptions, workspace/didChangeConfiguration).
//
// Parsed leniently: an unknown key is ignored and a bad value keeps the previous one and
// is reported, so one typo in a settings file never stops the server. The keys, their
// checks and the words for a bad value are the options table's (Options.h), shared with
// the CLI and `[package.metadata.kernelscope]`.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Artifact.h"
#include "Compile.h"
#include "CompileCache.h"

namespace ks::server {

struct Settings {
  /// Unset: the crate's `[package.metadata.kernelscope]` value, else CompileOptions' default.
  std::optional<std::string> arch;
  std::optional<int> optLevel;
  std::optional<ToolchainProfile>
      toolchainProfile;  // unset: the crate's `profile`, else rustc-nvptx
  std::vector<Stage> stages{kAllStages, kAllStages + 4};    // which stages compile
  std::vector<Stage> hoverStages{Stage::Ptx, Stage::Sass};  // shown in hover and inlay hints
  std::string rustc;                                        // empty: discover
  std::vector<std::string> extraRustcFlags;
  std::optional<std::chrono::milliseconds> debounce;  // empty: adaptive
  bool remarks = false;                               // optimization remarks as hint diagnostics
  size_t compileCacheMB = kDefaultCompileCacheMB;     // the bound of the results kept
  /// The user trusts the workspace (Trust.h): VS Code's workspace trust, in other editors the
  /// user's own `workspaceTrusted` setting. Never taken from the workspace's kernelscope.toml.
  bool workspaceTrusted = false;
  /// The command prefix that reaches a GPU machine (`ssh gpu-box`), like Cargo's
  /// target.runner; empty: this machine. A program to run: from kernelscope.toml only when
  /// the workspace is trusted.
  std::string gpuRunner;
  std::string ncu;  // Nsight Compute's CLI (on the GPU machine); empty: found there

  /// The pipeline options these settings ask for.
  CompileOptions compileOptions() const;
  bool operator==(const Settings&) const = default;
};

/// Applies `json` (either the kernelscope object itself or `{ "kernelscope": {...} }`) on
/// top of `base`. Problems (wrong types, unknown arch or stage) are appended to `problems`.
/// A null value resets its key: to unset (arch, optLevel), or to the default.
Settings applySettings(const Settings& base, const nlohmann::json& json,
                       std::vector<std::string>& problems);

/// Removes from `fileValues` (a workspace's kernelscope.toml, as validated JSON) what the
/// workspace may not choose for itself: `workspaceTrusted` always; unless `trusted`, also
/// `rustc`, `gpuRunner` and `ncu` (programs to run), a `toolchainProfile` that runs cargo and the
/// `extraRustcFlags` off the allow-list. Returns what was removed, in words.
std::vector<std::string> withholdUntrustedSettings(nlohmann::json& fileValues, bool trusted);

/// The settings of a workspace's `kernelscope.toml` as the JSON applySettings takes. The
/// file is TOML with top-level keys (those above) whose values are strings, integers,
/// booleans or arrays of them. Lines it cannot read, and values of other types, are
/// appended to `problems` with their line number; the rest of the file still applies.
nlohmann::json parseSettingsFile(const std::string& text, std::vector<std::string>& problems);

/// The settings from their layers, lowest first: the defaults, the workspace's
/// kernelscope.toml (only what an untrusted workspace may choose, until the editor's layer
/// says the user trusts it), the editor's. Each layer holds the keys it set, already checked.
class SettingsLayers {
 public:
  /// The editor's changes: a value sets its key, null takes it back (to kernelscope.toml's
  /// value, else the default).
  void changeEditorValues(const nlohmann::json& changes);
  /// kernelscope.toml's values, as read again.
  void setFileValues(nlohmann::json values) { file_ = std::move(values); }

  struct Layered {
    Settings settings;
    bool trusted = false;
    std::vector<std::string> withheld;  // kernelscope.toml's values not applied, in words
  };
  Layered layered() const;

 private:
  nlohmann::json editor_ = nlohmann::json::object();  // the keys the editor set
  nlohmann::json file_ = nlohmann::json::object();    // the keys kernelscope.toml sets
};

}  // namespace ks::server
