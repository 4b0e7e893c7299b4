// Kernel crates: which Cargo crate a source file belongs to, and how rustc compiles it.
//
// Real kernels live in Cargo crates (`#![no_std]`, several modules, path dependencies on
// other `no_std` crates). From any `.rs` file we find its package (the nearest Cargo.toml
// upward whose library holds the file), read it with `cargo metadata --offline --no-deps`,
// build its path dependencies as rlibs with the same target flags, and hand the compile
// driver one rustc call for the library root with `--extern` for each dependency. A file
// outside any crate is compiled on its own, as before. Unsaved text of open files is
// written into a shadow tree of the package (everything else symlinked) and its paths
// are remapped back, so every location names the real file.
#pragma once

#include <array>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Diagnostics.h"
#include "Process.h"
#include "Profile.h"
#include "Toolchain.h"

namespace ks {

struct CompileInput;
struct ExternCrate;
struct CompileOptions;
struct ResolvedOptions;

/// The figures a budget limits, by their keys in `[package.metadata.kernelscope.budget]`;
/// `min-occupancy` (a percent at `block-size` threads, default the compile's block size) is
/// the least occupancy, every other key the most.
inline constexpr std::array<std::string_view, 7> kBudgetKeys = {
    "registers",     "spill-bytes",  "local-memory", "stack",
    "shared-memory", "instructions", "min-occupancy"};

/// A kernel's budget: figure (as in kBudgetKeys, `min-occupancy` read as `occupancy`) -> limit.
struct KernelBudget {
  std::map<std::string, double> limits;
  std::optional<uint32_t> blockSize;  // the block size `min-occupancy` is computed at
};

/// A budget table written as JSON (kernelscope.toml's `[budget]`, read by the server's TOML
/// reader): what `[package.metadata.kernelscope.budget]` says, checked the same way; `where`
/// names the table in problems.
std::map<std::string, KernelBudget> parseBudgets(std::string_view jsonText,
                                                 const std::string& where,
                                                 std::vector<std::string>& problems);
/// Adds to `budgets` the limits of `below` that it leaves unset, kernel by kernel and figure
/// by figure (a crate's budget over the workspace's kernelscope.toml).
void addBudgetsBelow(std::map<std::string, KernelBudget>& budgets,
                     const std::map<std::string, KernelBudget>& below);

/// `[package.metadata.kernelscope]` of a crate's Cargo.toml:
///   arch = "sm_80"   opt-level = 2   profile = "rust-cuda"   rustc-flags = ["-C",
///   "target-feature=+ptx80"] [package.metadata.kernelscope.launch.saxpy]   n = 1048576   x =
///   "f32[n] ones"   ...
/// (a kernel's launch spec, pipeline/gpu/LaunchSpec.h)
/// The arch, opt-level and profile are the crate's defaults (a setting the user gives for the
/// compile wins); the flags are added to the crate's rustc call.
struct CrateSettings {
  std::optional<std::string> arch;
  std::optional<int> optLevel;
  std::optional<ToolchainProfile> profile;  // which compiler builds it (Profile.h)
  std::vector<std::string> rustcFlags;
  /// `[package.metadata.kernelscope.launch.KERNEL]`: each kernel's launch spec items
  /// (key, value as written), read by pipeline/gpu/LaunchSpec.h.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> launch;
  /// `[package.metadata.kernelscope.budget]`: its own keys are every kernel's budget (under
  /// ""), a table `[...budget.KERNEL]` one kernel's (what it leaves out comes from "").
  std::map<std::string, KernelBudget> budgets;
  std::vector<std::string> problems;  // values that were ignored, and why
};

/// One Cargo package with a library target, as kernelscope builds it.
struct CratePackage {
  std::string name;                // the package name ("scaled-kernels")
  std::string crateName;           // the library's crate name ("scaled_kernels")
  std::filesystem::path manifest;  // its Cargo.toml
  std::filesystem::path root;      // the directory of the Cargo.toml
  std::filesystem::path libRoot;   // src/lib.rs or `[lib] path`
  std::string edition = "2021";
  std::map<std::string, std::vector<std::string>> featureTable;  // `[features]`
  struct Dependency {
    std::string externName;      // the name the crate uses (`rename` or the lib's name)
    std::filesystem::path path;  // the dependency's package directory
    bool defaultFeatures = true;
    std::vector<std::string> features;
  };
  std::vector<Dependency> pathDependencies;
  std::vector<std::string> otherDependencies;  // registry/git dependencies (cargo builds them)
  bool hasBuildScript = false;                 // a build.rs (cargo runs it)
  bool isProcMacro = false;                    // a proc-macro library (cargo runs it in rustc)
  std::filesystem::path workspaceRoot;         // the directory of the workspace's Cargo.toml
  std::vector<std::filesystem::path>
      workspaceMembers;  // their Cargo.toml files, this one's included
  CrateSettings settings;
};

/// `NAME=PATH` as `--extern` takes it: NAME a Rust identifier, PATH (made absolute) a
/// crate's directory with its Cargo.toml or a `.rlib` file; the reason when it is not.
std::optional<std::string> parseExternCrate(std::string_view spec, ExternCrate& out);

/// The package whose library contains `file` (nearest Cargo.toml upward), or nullopt when
/// the file is not in one (a standalone kernel). A Cargo.toml that cargo cannot read
/// gives nullopt and the reason in `problem`. Results are cached per manifest and its
/// modification time.
std::optional<CratePackage> findCrate(const Toolchain&, const std::filesystem::path& file,
                                      std::string* problem = nullptr);

/// The package of one Cargo.toml (`cargo metadata --offline --no-deps`), cached by the
/// manifest's modification time and size; nullopt with the reason in `problem`.
std::optional<CratePackage> loadPackage(const Toolchain&, const std::filesystem::path& manifest,
                                        std::string* problem = nullptr);

/// `cargo metadata --offline --no-deps` of `manifest`, run outside the workspace (its
/// cargo configuration is not read); nullopt with the reason in `problem`.
std::optional<std::string> cargoMetadata(const Toolchain&, const std::filesystem::path& manifest,
                                         std::string& problem);

/// A package of a workspace: its name and its Cargo.toml.
struct WorkspacePackage {
  std::string name;
  std::filesystem::path manifest;
};
/// The packages of the workspace `manifest` belongs to (a virtual workspace's root too),
/// from cargo's metadata; empty with the reason in `problem`.
std::vector<WorkspacePackage> workspacePackages(const Toolchain&,
                                                const std::filesystem::path& manifest,
                                                std::string& problem);

/// The options `file` compiles with (resolveOptions): what `options` left unset from the
/// `[package.metadata.kernelscope]` of the file's crate, else the defaults; a `.cu` file's
/// default stages. The engine calls this, under its option layer.
ResolvedOptions resolveForFile(const Toolchain&, const std::filesystem::path& file,
                               const CompileOptions& options);

/// The crate's `rustc-flags` this compile may pass: all of them for a trusted workspace
/// (with a note naming those that need trust), only the allow-listed ones otherwise (with
/// a warning naming the rest). See Trust.h.
std::vector<std::string> crateRustcFlags(const CratePackage&, const ResolvedOptions&,
                                         std::vector<Diagnostic>& diagnostics);

/// kernelscope's own word about a crate (source "kernelscope"), at the first line of its
/// `manifest` when given.
Diagnostic crateDiagnostic(Severity, std::string message,
                           const std::filesystem::path& manifest = {}, std::string code = {});

/// Target flags every rustc call of one compile shares (the kernel crate and its
/// dependencies must agree on them): sysroot, target, opt-level, target-cpu, codegen
/// units and line directives.
std::vector<std::string> rustcTargetArgs(const Toolchain&, const ResolvedOptions&);

/// A crate that cargo builds (CargoBuild.h): only in a trusted workspace.
struct CargoUnit {
  std::filesystem::path manifest;       // the package's real Cargo.toml
  std::filesystem::path workspaceRoot;  // the real directory of the workspace's Cargo.toml
  std::filesystem::path base;           // its place in the cache: shadow tree, target dirs, lock
  std::map<std::string, std::string> overlays;  // unsaved text in the workspace: real path -> text
};

/// What the compile driver's rustc call compiles, prepared by prepareRustcUnit().
struct RustcUnit {
  std::filesystem::path source;  // the root file to pass (in a shadow tree when unsaved)
  std::string crateName;
  std::string edition = "2021";
  std::vector<std::string> args;      // --extern/-L for dependencies, --cfg features,
                                      // --remap-path-prefix, the crate's rustc-flags
  std::vector<std::string> userDirs;  // locations under these (ending in '/') are the user's
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>>
      remaps;                                      // shadow tree -> real dir
  std::vector<std::filesystem::path> sourceFiles;  // dependencies' files (from dep-info)
  /// The dependencies' rlibs (built by cargo or here), whose code a launched image links
  /// where the kernels call it (CoreLink.h).
  std::vector<std::filesystem::path> dependencyRlibs;
  std::optional<CratePackage> crate;  // nullopt for a standalone file
  /// Set when cargo builds the crate (a trusted workspace); otherwise rustc is run directly,
  /// with path dependencies built as rlibs by kernelscope.
  std::optional<CargoUnit> cargo;
  /// Set by a cargo build that stopped because cargo could not resolve the workspace's
  /// dependencies offline: rustc alone can still compile the crate (rustcAloneAfterCargo).
  bool cargoCouldNotResolve = false;
  std::vector<Diagnostic> diagnostics;  // from reading Cargo.toml and building dependencies
  std::string failure;                  // non-empty: nothing can be compiled, and why
  bool cancelled = false;
  std::chrono::milliseconds toolTime{0};
  /// Path dependencies built by this call, and those taken from the rlib cache
  /// (`<cache>/rlibs/<crate>-<digest>/`, keyed by their sources, flags and rustc).
  size_t dependenciesBuilt = 0, dependenciesReused = 0;
};

/// Finds the crate of `input.path` and returns the unit to compile: for a trusted workspace
/// the crate as cargo builds it; otherwise the crate with its path dependencies built into
/// `workDir` by rustc alone (build scripts, proc macros and registry dependencies are then
/// left out, and a warning says so); for a file outside any crate, the file itself.
RustcUnit prepareRustcUnit(const Toolchain&, const CompileInput&, const ResolvedOptions&,
                           const std::filesystem::path& workDir, const CancellationToken&);

/// After a cargo build could not resolve the workspace offline (a registry
/// crate another member needs is not in the local cache): the same crate prepared for rustc
/// alone, as for an untrusted workspace, with a warning at its Cargo.toml that says so and
/// what cargo said.
RustcUnit rustcAloneAfterCargo(const Toolchain&, const CompileInput&, const ResolvedOptions&,
                               const std::filesystem::path& workDir, const CancellationToken&,
                               const std::string& cargoSaid);

/// Runs the compile driver's rustc call on `unit` (rustcCommand in Compile.h), or for a
/// crate that cargo builds the same call through `cargo rustc` (CargoBuild.h): either way
/// rustc's JSON diagnostics are in `err` and its outputs in `outDir` as `<crateName>.<ext>`.
/// With a `remarkDir`, rustc's optimization remarks (all passes) are in it afterwards.
ProcessResult runRustcUnit(const Toolchain&, RustcUnit&, const ResolvedOptions&,
                           const std::string& emit, const std::filesystem::path& outDir,
                           const std::filesystem::path& workDir,
                           const std::vector<std::string>& extraArgs,
                           const std::filesystem::path& remarkDir, const CancellationToken&);

/// A compile's unsaved texts by normalized absolute path: the other open files' overlays
/// and the kernel file's own text.
std::map<std::string, std::string> unsavedTexts(const CompileInput&);

/// The directory a compiler should read for `dir`: `dir` itself, or, when unsaved text
/// (`overlays`: normalized path -> text) lies under it, a shadow tree in `workDir` with
/// that text and symlinks to everything else; the pair (shadow, dir) is added to `remaps`.
std::filesystem::path sourceView(
    const std::filesystem::path& dir, const std::map<std::string, std::string>& overlays,
    const std::filesystem::path& workDir,
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& remaps);

/// The source files a rustc dep-info (`.d`) file lists, relative ones taken from `base`,
/// with shadow-tree prefixes mapped back to the real directories (`remaps`: shadow -> real).
std::vector<std::filesystem::path> readDepInfo(
    const std::filesystem::path& depFile,
    const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& remaps = {},
    const std::filesystem::path& base = {});

}  // namespace ks
