// The stages after PTX, shared by every front end (FrontEnd.h): ptxas, nvdisasm, the line
// map and the kernel table.
//
// Each step completes a CompileResult in place: kernelTable() lists the PTX's entry points;
// BackEndTools runs ptxas (resources and the cubins) and nvdisasm (SASS) per group of kernels
// (KernelModules.h; groups not cached merged into one module per core) on threads of their
// own while the PTX's chains are completed; assemble() and disassemble() then read
// what they printed; each adds its stage to the line map. compileKernel publishes the result after
// each step (StageListener in Compile.h). Internal to pipeline/.
#pragma once

#include <filesystem>
#include <future>
#include <optional>
#include <string>

#include "Compile.h"
#include "ExactLocations.h"
#include "Files.h"
#include "FrontEnd.h"
#include "KernelImages.h"
#include "KernelModules.h"
#include "Process.h"

namespace ks {

/// An error diagnostic without a location: a tool is missing, failed or crashed.
Diagnostic toolError(std::string message, std::string source = "kernelscope");
/// Copies `content` to `opts.saveTempsDir/name` when saving temps.
void saveTemp(const ResolvedOptions&, const std::string& name, const std::string& content);

/// The front end's stages added to `in.lineMap` and the kernels of its PTX, without
/// resources yet; `result.lineMap` is set.
void kernelTable(const FrontEndOutput& in, const ResolvedOptions&, CompileResult& result);

/// `in.ptx` with its final chains (FrontEnd::afterFirstView) as the PTX stage, in a new line
/// map: the one published before stays as it was.
void replacePtx(const FrontEndOutput& in, const ResolvedOptions&, CompileResult& result);

/// ptxas and nvdisasm on the front end's PTX, run on a thread of their own from the moment
/// the first view is published, while the front end completes the PTX's chains
/// (FrontEnd::afterFirstView): what they are given (ptxWithLineIds) does not depend on the
/// chains, and what they print is read only after the chains are final (assemble,
/// disassemble). The kernels are assembled in groups, each in a module of its own
/// (KernelModules.h), the modules that `opts.kernelImages` does not hold in parallel up to
/// the cores: every ptxas first (the resources), then every nvdisasm. More of them than cores,
/// where nvdisasm runs: the groups of each merged module (KernelModules::merged) that all
/// missed are assembled and disassembled as one, each group's image cut from it (Merged).
/// The destructor waits for the tools, so that nothing outlives the compile's directory.
class BackEndTools {
 public:
  /// Starts ptxas (when PTX or SASS is wanted and ptxas exists) and then nvdisasm (when SASS
  /// is wanted and ptxas made a cubin) on `in`'s launched image (its linked PTX, or its PTX),
  /// writing into `outDir`.
  BackEndTools(const Toolchain&, const ResolvedOptions&, const CancellationToken&,
               const FrontEndOutput& in, const std::filesystem::path& outDir);
  ~BackEndTools();
  BackEndTools(const BackEndTools&) = delete;
  BackEndTools& operator=(const BackEndTools&) = delete;

  /// A group of kernels' module and what ptxas made of it.
  struct Kernel {
    KernelModule module;
    std::string key;                           // its KernelImageCache key
    std::shared_ptr<const KernelImage> image;  // null: ptxas failed or was cancelled
    ProcessResult run;  // ptxas's last run on it; not started when the image was kept
  };
  /// Groups assembled as one module (KernelModules::merged) when none of them is kept: each
  /// group's image is cut from what ptxas and nvdisasm made of it.
  struct Merged {
    std::vector<size_t> members;  // into Ptxas::kernels
    Kernel whole;                 // no key: kept only as its groups' images
    bool assembled = false;       // its groups' images were cut from it
  };
  struct Ptxas {
    std::vector<Kernel> kernels;  // one per module
    std::vector<Merged> merged;
    std::vector<std::string> functions;  // the PTX's, in its order (KernelModules)
    bool lineIds = false;                // ptxas read the PTX with line ids (ptxWithLineIds)
    bool cancelled = false;
    std::chrono::milliseconds elapsed{0};  // the runs' time, added up
  };
  /// Waits for every ptxas.
  const Ptxas& ptxas();
  /// What nvdisasm printed (`-c -g -gi`), per group of ptxas(), each image with its SASS.
  struct Disassembly {
    std::vector<std::shared_ptr<const KernelImage>> images;  // empty: it did not run
    std::optional<ProcessResult> failure;                    // the first run that failed
    bool cancelled = false;
    std::chrono::milliseconds elapsed{0};
  };
  /// Waits for nvdisasm and hands over what it printed (once: its output is moved out).
  Disassembly takeNvdisasm();

 private:
  std::shared_future<Ptxas> ptxas_;
  std::future<Disassembly> nvdisasm_;
};

/// What ptxas made, for disassemble(): whether there is code to disassemble.
struct Assembled {
  bool sassToCome = false;
};

/// ptxas's reports once they are done: resources and occupancy for every kernel, ptxas's
/// diagnostics (placed by the PTX's final chains), and each kernel's loadable cubin.
/// nullopt when cancelled.
std::optional<Assembled> assemble(const Toolchain&, const ResolvedOptions&, BackEndTools& tools,
                                  const FrontEndOutput& in, CompileResult& result);

/// nvdisasm's SASS once it is done, with exact or recovered inline chains, added to the line
/// map; counts each kernel's SASS instructions. The SASS is the modules' listings made one:
/// each function once (from the first module that has it), in the PTX's order, labels
/// numbered in the order they come, so that it does not depend on how the kernels were
/// grouped. Returns false when cancelled.
bool disassemble(const Toolchain&, const ResolvedOptions&, BackEndTools& tools,
                 const FrontEndOutput& in, const Assembled& assembled, CompileResult& result);

}  // namespace ks
