// Workspace trust: what a workspace's own files may choose.
//
// A workspace is untrusted until the user says otherwise (CompileOptions::workspaceTrusted:
// the CLI sets it, the language server takes it from the editor). Settings that come from
// the workspace's files (`[package.metadata.kernelscope]` in Cargo.toml, kernelscope.toml)
// may always choose safe values: the arch, the opt level, remarks, the block size and rustc
// flags on the allow-list below. Anything that names a program, a library to load, a path to
// write or a profile that runs cargo (and with it the crate's build scripts) is applied only
// when the workspace is trusted; otherwise it is withheld and the user is told.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "Profile.h"

namespace ks {

/// Workspace rustc flags split into those any workspace may set, those that need trust and
/// those never passed: an argument that begins with `@` names a file whose lines rustc reads
/// as more arguments (`--cfg @flags.txt` could say `-Zcodegen-backend=...`).
struct VettedFlags {
  std::vector<std::string> safe;  // in their order, each option with its value
  std::vector<std::string>
      needTrust;  // likewise: -Zcodegen-backend, --emit=..=PATH, -o, -C linker, ...
  std::vector<std::string> refused;  // options with an `@file` argument, with that argument
  std::vector<std::string> trusted;  // safe and needTrust in their order: a trusted workspace's
};

/// Splits `flags` (rustc's command-line form: `-C key=value`, `-Ckey=value`, `--cfg X`, ...).
/// An option is safe only when its value is valid by the option's own grammar (a cfg spec,
/// a lint name, a level). The allow-list holds flags that only change code generation or
/// lints: `-C` target-feature,
/// target-cpu, opt-level, debuginfo, debug-assertions, overflow-checks, inline-threshold,
/// codegen-units, panic, force-frame-pointers, relocation-model, code-model, remark; `-Z`
/// mir-opt-level, inline-mir, inline-mir-threshold, inline-mir-hint-threshold,
/// mir-enable-passes; `--cfg`, `--check-cfg`; the lint levels (-A/-W/-D/-F/--cap-lints).
/// Anything else (unknown flags included) needs trust.
VettedFlags vetWorkspaceRustcFlags(const std::vector<std::string>& flags);

/// Whether `flags` (in the same form) leave rustc's LLVM back end as kernelscope sets its own
/// up: no `-C` option but those that change only the IR (debuginfo, debug-assertions,
/// overflow-checks, inline-threshold, panic, remark) and no `-Z` option but the MIR ones
/// above. Any other (target-feature, llvm-args, relocation-model, ...) may change the PTX.
bool leavesBackEndAlone(const std::vector<std::string>& flags);

/// The flag in `flags` (as given: one argument or two) that sets rustc's codegen units
/// (`-C codegen-units=N`), if any. kernelscope compiles a crate as one unit: rustc cuts
/// units along modules and optimizes each apart (other code), writing one file per unit.
std::optional<std::string> codegenUnitsFlag(const std::vector<std::string>& flags);

/// Whether compiling with `profile` runs cargo, and with it the crate's build scripts.
bool profileRunsCargo(ToolchainProfile profile);

/// "a" "b" "c" -> "a b c", for messages.
std::string joinFlags(const std::vector<std::string>& flags);

/// Diagnostic::code of the messages about workspace values applied or withheld for trust.
inline constexpr const char* kWorkspaceTrustCode = "workspace-trust";

/// The sentence every "withheld" message ends with.
inline constexpr const char* kTrustHint =
    "the workspace is not trusted (trust it in the editor, or set workspaceTrusted in your own "
    "editor settings)";

/// Why flags with an `@file` argument are never passed, trusted or not.
inline constexpr const char* kResponseFileRefusal =
    "an argument beginning with @ makes rustc read more arguments from a file, which a "
    "workspace may never choose";

}  // namespace ks
