// Launch specs checked where they are written, before anything runs: the `// kernelscope:`
// spec above a kernel parsed and resolved against the kernel's real parameters (no GPU, no
// gpu-exec), each problem at its line and, where the parser knows it, its columns, with the
// fix when one is obvious. The language server shows them as diagnostics with quick fixes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "Compile.h"
#include "SpecText.h"

namespace ks::gpu {

/// An edit of the spec's file: [column, endColumn) of 1-based `line` (1-based byte columns;
/// equal: an insertion there) replaced by `text`.
struct SpecEdit {
  uint32_t line = 0;
  uint32_t column = 0, endColumn = 0;
  std::string text;
};

struct SpecFix {
  std::string title;  // "Shift first: (1 << 20) / 256"
  SpecEdit edit;
};

struct SpecProblem {
  SpecError error;  // at its line of the file, columns when known
  std::optional<SpecFix> fix;
};

/// The problems of the spec written in comments above `kernel` in `source` (the text that
/// compiled into `result`), each once. Empty when the kernel has no spec there or its
/// parameters are unknown (no PTX). `crateSpec`: the crate's Cargo.toml has a spec for it
/// too, whose items a run adds: only the problems within the written items themselves
/// (syntax, unknown names, shifts) are told, not what the items lack.
std::vector<SpecProblem> checkWrittenSpec(const CompileResult& result, const KernelInfo& kernel,
                                          const std::string& path, const std::string& source,
                                          bool crateSpec);

}  // namespace ks::gpu
