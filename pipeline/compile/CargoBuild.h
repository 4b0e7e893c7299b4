// Kernel crates through cargo: `cargo rustc` for nvptx64-nvidia-cuda with kernelscope's
// sysroot and its `--emit` flags, offline, into kernelscope's own cache.
//
// Cargo is the engine that knows what a crate is: crate types, build scripts, registry
// dependencies (from the user's cargo cache, or a vendored or directory source that the
// user's `.cargo/config.toml` configures), features, workspaces, `[lib] path` and the
// `.cargo/config.toml` target settings. kernelscope asks it to build the library of the
// file's package as an rlib (a cdylib's final link would need llvm-bitcode-linker, which
// rustc-web lacks), with the kernel crate's rustc call getting the flags a standalone
// compile gets (MIR, LLVM IR, PTX, dep-info, remarks). Its outputs are copied into the
// compile's own directory under the names the rustc front end uses, so everything after
// the rustc step is the same for both.
//
// Nothing is written into the user's tree. Cargo reads a shadow of the file system (a
// mirror of `/` in which the directories on the way to unsaved files are real and all else
// is a symlink; the workspace's Cargo.lock is a copy) and writes into a target directory in
// the cache. Both are stable per workspace, so cargo's own fingerprints make dependencies a
// one-time cost; a lock file serializes compiles of one workspace, across processes.
// Build scripts and proc macros run as cargo runs them, which is why this path is taken
// only for a trusted workspace (Crate.h says what happens otherwise).
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "Process.h"
#include "Toolchain.h"

namespace ks {

struct ResolvedOptions;
struct RustcUnit;

/// Runs `cargo rustc` for `unit.cargo` (see Crate.h): the kernel crate gets `--emit=<emit>`
/// and `extraArgs`; its `.mir`/`.ll`/`.s`/`.d` land in `outDir` as `<crateName>.<ext>`, and
/// its optimization remarks in `remarkDir` when that is not empty. The
/// result reads like rustc's own: `err` holds rustc's JSON diagnostics (spans with real,
/// absolute paths), then what cargo itself said (build script failures, resolution errors).
/// Adds the files of the workspace's path packages to `unit.sourceFiles` and their
/// directories to `unit.userDirs`.
ProcessResult runCargoRustc(const Toolchain&, RustcUnit& unit, const ResolvedOptions&,
                            const std::string& emit, const std::filesystem::path& outDir,
                            const std::vector<std::string>& extraArgs,
                            const std::filesystem::path& remarkDir, const CancellationToken&);

/// Brings `shadowRoot` (a mirror of `/`) up to date: every file named in `overlays` (real
/// path -> text) holds that text, every file in `copies` a copy of the disk's (kept when the
/// disk has none: cargo may have written it), everything else is a symlink to the real entry.
/// A file once written stays a file whose content follows the disk's, so that cargo's
/// modification-time fingerprints see every change, a revert to the saved text included;
/// `record` lists those files between calls.
void syncShadowTree(const std::filesystem::path& shadowRoot,
                    const std::map<std::string, std::string>& overlays,
                    const std::set<std::string>& copies, const std::filesystem::path& record);

/// Where real path `p` appears in the mirror of `/` at `shadowRoot`.
std::filesystem::path shadowPathOf(const std::filesystem::path& shadowRoot,
                                   const std::filesystem::path& p);

}  // namespace ks
