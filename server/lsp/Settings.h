// Settings: what the editor chose (initializationOptions, workspace/didChangeConfiguration)
// over the workspace's kernelscope.toml.
//
// Decoded leniently: an unknown key is ignored and a bad value keeps the previous one and
// is reported, so one typo in a settings file never stops the server. The keys, their
// types, checks and the words for a bad value are the options table's (Options.h), shared
// with the CLI and `[package.metadata.kernelscope]`. Past the decoding, settings are typed
// values (OptionValue): no JSON.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "Artifact.h"
#include "Compile.h"
#include "CompileCache.h"
#include "Crate.h"
#include "Options.h"

namespace ks::server {

struct Settings {
  /// The compile options chosen: `arch`, `optLevel`, `toolchainProfile` (`profile`) and
  /// `stages` unset take the crate's `[package.metadata.kernelscope]` value, else the default
  /// (resolveOptions); `extraRustcFlags`; `remarks` (as hint diagnostics) off unless asked for;
  /// `workspaceTrusted`: the user trusts the workspace (Trust.h), VS Code's workspace trust, in
  /// other editors the user's own setting, never taken from the workspace's kernelscope.toml.
  CompileOptions compile = withoutRemarks();
  std::vector<Stage> hoverStages{Stage::Ptx, Stage::Sass};  // shown in hover and inlay hints
  std::string rustc;                                        // empty: discover
  std::optional<std::chrono::milliseconds> debounce;        // empty: adaptive
  size_t compileCacheMB = kDefaultCompileCacheMB;           // the bound of the results kept
  /// The command prefix that reaches a GPU machine (`ssh gpu-box`), like Cargo's
  /// target.runner; empty: this machine. A program to run: from kernelscope.toml only when
  /// the workspace is trusted.
  std::string gpuRunner;
  std::string ncu;  // Nsight Compute's CLI (on the GPU machine); empty: found there

  bool operator==(const Settings&) const = default;

 private:
  static CompileOptions withoutRemarks() {
    CompileOptions o;
    o.remarks = false;
    return o;
  }
};

/// Settings by their key (the options table's `setting`), each value checked.
using SettingValues = std::map<std::string, OptionValue, std::less<>>;
/// Changes of the editor's settings: a value sets its key, nullopt takes it back.
using SettingChanges = std::map<std::string, std::optional<OptionValue>, std::less<>>;

/// The editor's settings (initializationOptions, didChangeConfiguration: the kernelscope
/// object itself or `{ "kernelscope": {...} }`) decoded into checked values, once, where they
/// come in. null (or "") takes a key back; a bad value is left out and appended to
/// `problems`; keys that are no setting (other clients', the connection's token) are
/// ignored. nullopt when `json` holds no settings object.
std::optional<SettingChanges> decodeEditorSettings(const nlohmann::json& json,
                                                   std::vector<std::string>& problems);

/// The settings of a workspace's `kernelscope.toml`, checked as the editor's are. The file
/// is TOML with top-level keys (the settings') whose values are strings, integers, booleans
/// or arrays of them. Lines it cannot read, and values of other types, are appended to
/// `problems` with their line number, then bad values; the rest of the file still applies.
SettingValues parseSettingsFile(const std::string& text, std::vector<std::string>& problems);
/// The `[budget]` and `[budget.KERNEL]` tables of a `kernelscope.toml` (what a crate's
/// `[package.metadata.kernelscope.budget]` says, for every crate of the workspace), checked as
/// the crate's are; their problems in `problems` (the file's own are parseSettingsFile's).
std::map<std::string, KernelBudget> settingsFileBudgets(const std::string& text,
                                                        std::vector<std::string>& problems);

/// The settings that `layers` (lowest first) set over the defaults.
Settings settingsFrom(std::initializer_list<const SettingValues*> layers);

/// How a user of the editor named `clientName` (initialize's clientInfo.name) trusts a
/// workspace, in that editor's own terms, to end a message about what was withheld: VS
/// Code's command, the setting as each plugin's configuration spells it.
std::string trustHintFor(std::string_view clientName);

/// What a user of the editor named `clientName` sets to run kernels on a GPU elsewhere, in
/// that editor's own terms: the end of the message when this machine has no CUDA driver.
std::string runnerHintFor(std::string_view clientName);

/// `message` with kTrustHint (the pipeline's words, for any editor) in the terms of the
/// editor whose hint is `hint` (trustHintFor).
std::string inEditorTerms(std::string message, const std::string& hint);

/// Removes from `fileValues` (a workspace's kernelscope.toml) what the workspace may not
/// choose for itself: `workspaceTrusted` always; unless `trusted`, also `rustc`, `gpuRunner`
/// and `ncu` (programs to run), a `toolchainProfile` that runs cargo and the
/// `extraRustcFlags` off the allow-list; trusted or not, flags with an `@file` argument.
/// Returns what was removed, in words, with why.
std::vector<std::string> withholdUntrustedSettings(SettingValues& fileValues, bool trusted);

/// The settings from their layers, lowest first: the defaults, the workspace's
/// kernelscope.toml (only what an untrusted workspace may choose, until the editor's layer
/// says the user trusts it), the editor's. Each layer holds the keys it set, checked.
class SettingsLayers {
 public:
  /// The editor's changes: a value sets its key, nullopt takes it back (to
  /// kernelscope.toml's value, else the default).
  void changeEditorValues(const SettingChanges& changes);
  /// kernelscope.toml's values, as read again.
  void setFileValues(SettingValues values) { file_ = std::move(values); }

  struct Layered {
    Settings settings;
    bool trusted = false;
    std::vector<std::string> withheld;  // kernelscope.toml's values not applied, in words
  };
  Layered layered() const;

 private:
  SettingValues editor_;  // the keys the editor set
  SettingValues file_;    // the keys kernelscope.toml sets
};

}  // namespace ks::server
