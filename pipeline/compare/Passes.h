// Pass by pass: the optimization passes that changed one kernel, in LLVM and in MIR.
//
// One extra rustc run over the kernel (the compile driver's command, see rustcCommand)
// with two dumps switched on:
//  - LLVM: `-C llvm-args=-print-changed -print-module-scope -filter-print-funcs=SYMBOL`
//    prints the whole module at the start and after every pass that changed the IR unit
//    it ran on (a function, a loop, an SCC or the module) while the unit involves the
//    kernel. Module scope matters: a loop pass alone would print only the loop. A loop
//    pass that deletes its loop (full unrolling) is printed by nobody but `-print-after`,
//    so that is on for the passes that can (kLoopDeletingPasses). We keep
//    the kernel's function (`define ... @SYMBOL(` to `}`) from each dump and list the
//    passes after which it differs from the one before.
//  - MIR: `-Zdump-mir=NAME -Zdump-mir-dir=DIR` writes the body before and after every
//    MIR pass (`crate.item.P-S-NNN.Pass.before|after.mir`); we list the passes whose
//    before and after differ (the header comment naming the pass left out).
// The kernel's function after the last listed LLVM pass is rustc's final IR of it, byte
// for byte (tests/pipeline/compare/PassesTest.cpp checks it against `--emit=llvm-ir`).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Artifact.h"
#include "Compile.h"
#include "Diagnostics.h"
#include "Process.h"
#include "Toolchain.h"

namespace ks {

/// One pass that changed the kernel.
struct PassChange {
  Stage stage = Stage::LlvmIr;  // LlvmIr or Mir
  std::string pass;             // "InstCombinePass", "GVN", "SimplifyCfg-initial"
  /// What the pass ran on: LLVM's IR unit ("saxpy", "[module]", "(saxpy)", "loop %bb3 in
  /// function saxpy"), or MIR's pass number ("3-2-004").
  std::string unit;
  size_t before = 0, after = 0;  // instructions (LLVM) or statements and terminators (MIR)
  std::string diff;              // unified diff of the kernel's body, before -> after
};

/// The passes of one stage.
struct StagePasses {
  Stage stage = Stage::LlvmIr;
  std::vector<PassChange> changes;
  size_t passesRun = 0;        // every pass the dump names for the kernel, changed or not
  std::string initial, final;  // the kernel's body before the first and after the last pass
  size_t initialCount = 0, finalCount = 0;
};

struct PassesOptions {
  bool llvm = true;
  bool mir = true;
  int context = 3;  // unchanged lines around each change in the diffs
};

struct PassesResult {
  std::string kernel;               // the kernel's symbol
  std::string demangled;            // its name as the user writes it
  std::vector<StagePasses> stages;  // LLVM IR then MIR, as asked for
  /// rustc's `--emit=llvm-ir` of the same run: the final IR the passes lead to.
  std::string finalModuleIr;
  std::vector<std::string> kernels;  // every kernel of the crate (for "unknown kernel")
  std::vector<Diagnostic> diagnostics;
  /// The files the run read (the crate's modules, its path dependencies' files, Cargo.toml):
  /// a change to any of them makes a kept view stale. Empty when rustc listed none.
  std::vector<std::filesystem::path> sourceFiles;
  std::string error;  // non-empty: nothing to show, and why
  bool cancelled = false;

  const StagePasses* stage(Stage) const;
};

/// Runs rustc once more over the kernel's crate with the dumps on and collects the passes
/// that changed `kernel` (its symbol, its demangled path or its last path segment).
PassesResult computePasses(const Toolchain&, const CompileInput&, const ResolvedOptions&,
                           const std::string& kernel, const PassesOptions& = {},
                           const CancellationToken& = {});

// --- The parsers, public for the tests.

/// One IR dump of LLVM's `-print-changed` (with `-print-module-scope`).
struct IrDump {
  std::string pass;  // empty for the dump at the start
  std::string unit;
  std::string module;  // the module as printed
  /// A `-print-after` dump of a pass that deleted its unit ("... (invalidated) ***").
  bool invalidated = false;
  /// A pass before this one that deleted its unit and was printed by nobody: its change
  /// is in this dump too (named "that + this" in the list).
  std::string unprintedBefore;
};
/// The full dumps of `-print-changed` output (rustc's stderr): the start and every
/// "IR Dump After P on U" with its IR, and `-print-after`'s "(invalidated)" dumps; not the
/// one-line notes ("omitted because no change", "filtered out", "ignored"), the other
/// `-print-after` dumps (repeats) or rustc's JSON diagnostics.
std::vector<IrDump> parsePrintChanged(std::string_view text);
/// How many passes ran on units that involve `symbol` (changed or not) in that output.
size_t countPassesRun(std::string_view text, std::string_view symbol);
/// `define ... @symbol(` up to its closing `}` in a printed module; empty when absent.
std::string irFunctionText(std::string_view module, std::string_view symbol);
/// The instructions of a function's text (lines in its body that are not labels,
/// comments, blank or the closing brace).
size_t irInstructionCount(std::string_view functionText);
/// The LLVM passes that changed `symbol`, from parsed dumps.
StagePasses llvmPassChanges(const std::vector<IrDump>&, std::string_view symbol, int context = 3);

/// One file of a `-Zdump-mir-dir`.
struct MirDumpFile {
  std::string item;    // the body's path without the crate, `::` written `-` ("m-saxpy")
  std::string number;  // "3-2-004"
  std::string pass;    // "Inline"
  bool after = false;
  std::filesystem::path path;
};
/// The numbered pass dumps of `crate` in `dir`, in pass order (before ahead of after).
std::vector<MirDumpFile> listMirDumps(const std::filesystem::path& dir, std::string_view crate);
/// The dumped item that is the function `name` (a path "m::saxpy" or its last segment);
/// nullopt when none is, or several are and none matches the whole path.
std::optional<std::string> mirItemFor(const std::vector<MirDumpFile>&, std::string_view name);
/// The MIR passes that changed `item`.
StagePasses mirPassChanges(const std::vector<MirDumpFile>&, std::string_view item, int context = 3);
/// A MIR body as dumped, without the `// MIR for ... before|after Pass` header line (and
/// the blank line after it) that names the pass: what is left is the body as
/// `--emit=mir` prints it.
std::string mirBodyText(std::string_view dumped);

/// The pass-by-pass text the CLI prints and the `kernelscope:/passes/` document shows.
std::string renderPasses(const PassesResult&, const std::string& title);
/// Its title: the kernel, the file as the reader knows it, the stages shown and the target
/// ("Passes that changed saxpy — examples/saxpy.rs · LLVM IR, MIR (sm_90, opt-level 3)").
std::string passesTitle(const PassesResult&, const std::string& file, const std::string& arch,
                        int optLevel);

}  // namespace ks
