// A file of a crate without kernels, shown through the kernel crates that use it.
//
// A `no_std` math crate that kernels call has no kernels of its own: compiled alone it has
// no PTX, and its code exists only inlined into the kernels of the crates that depend on
// it. For a file of such a crate (a path dependency, a workspace member), the compile is
// that of every kernel crate using it, merged into one result: each stage's text holds the
// kernels of each crate in turn, and the line map attributes their instructions to the
// file's lines, with the inline chain from each kernel that leads there.
#pragma once

#include <filesystem>
#include <vector>

#include "Compile.h"

namespace ks {

/// The library roots of the kernel crates whose kernels may contain code of `input.path`:
/// empty when the file is not in a crate's library or its crate has kernels of its own.
/// Candidates are the members of the crate's workspace, the crates of the other open files
/// (`input.overlays`) and the packages in the directories next to the crate's (path
/// dependencies between sibling directories); kept are those with a kernel in their library
/// that depend on the file's crate by path, directly or through other path dependencies.
std::vector<std::filesystem::path> kernelCratesUsing(const Toolchain&, const CompileInput&);

/// One result from the compiles of several crates: every stage's text is theirs in turn,
/// with one line map over all of it; kernels, diagnostics (ptxas lines renumbered),
/// remarks and source files are all of theirs.
CompileResult mergeCompileResults(std::vector<CompileResult> results);

}  // namespace ks
