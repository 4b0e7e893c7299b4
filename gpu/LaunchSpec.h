// Launch specs: how to run a kernel once, checked against its real parameter list.
//
// A spec is a list of `key = value` items. It is written in the source, in `// kernelscope:`
// comments right above the kernel (`// kernelscope: grid = ceil(n / 256); block = 256`, on a line
// of its own or after `#[no_mangle]`),
// in a crate's `[package.metadata.kernelscope.launch.KERNEL]`, or on the command line; later
// items override earlier ones of the same key. Keys:
//   grid, block       an expression or a list `[x, y]` / `[x, y, z]`
//   shared            dynamic shared memory in bytes (default 0)
//   bytes, flops      what one launch moves and computes, for bandwidth and throughput
//                     (default bytes: the size of every buffer)
//   PARAM             each kernel parameter by its source name: a scalar expression, or a
//                     buffer `TYPE[LENGTH] CONTENTS` with CONTENTS one of zeros (default),
//                     ones, fill(V), iota, uniform(LO, HI, seed = S), file("x.npy" | "x.bin")
// Expressions use numbers, the other scalar parameters, + - * / % ** << >> and
// ceil floor min max; `/` divides exactly, so `ceil(n / 256)` is what it says.
//
// The spec language is kernelscope's own, so its small parser is hand-written here.
// Plain C++, no LLVM: the GPU runner (gpu-exec) builds alone on a machine without LLVM.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::gpu {

enum class ElemType : uint8_t { I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 };

/// "f32", "u64", ...; nullopt for anything else.
std::optional<ElemType> elemTypeFromName(std::string_view);
std::string_view elemTypeName(ElemType);
/// numpy's dtype string for the type ("<f4").
std::string_view elemTypeNumpy(ElemType);
size_t elemSize(ElemType);
bool isFloat(ElemType);
bool isSigned(ElemType);

/// One parameter of a kernel: its size from the PTX `.param`, its name and kind from the
/// source signature when there is one.
struct KernelParam {
  enum class Kind : uint8_t { Unknown, Pointer, Integer, Float };
  std::string name;  // as in the source; "param_N" when only the PTX is known
  unsigned bytes = 0;
  Kind kind = Kind::Unknown;
  std::optional<ElemType> type;     // a scalar's type (source), e.g. u32
  std::optional<ElemType> pointee;  // a pointer's element type (source), e.g. f32
  bool pointeeMutable = false;      // *mut T / T* without const: an output
};

struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
};

/// The kernels (`.entry`) of a PTX text with their parameters' sizes.
std::vector<KernelSignature> ptxKernelSignatures(std::string_view ptx);

/// Names and types `sig`'s parameters from the function declared at `nameOffset` (the byte
/// offset of its name) in `source`, Rust or (with `cuda`) CUDA C++. Returns why not ("" when
/// done): a source signature that does not match the PTX's parameter count is not used.
std::string addSourceSignature(KernelSignature& sig, std::string_view source, size_t nameOffset,
                               bool cuda);

/// A problem with a spec, where it was written.
struct SpecError {
  std::string origin;  // a file, "Cargo.toml [package.metadata.kernelscope.launch.K]", "--spec"
  uint32_t line = 0;   // 1-based; 0 when the origin has no lines
  std::string message;
  /// "saxpy.rs:9: no parameter named 'm' ..."
  std::string describe() const;
};

struct SpecItem {
  std::string key;
  std::string value;
  std::string origin;
  uint32_t line = 0;
};

struct LaunchSpec {
  std::vector<SpecItem> items;
  bool empty() const { return items.empty(); }
  /// The last item with `key`, or null.
  const SpecItem* find(std::string_view key) const;
};

/// Reads `k = v; k = v` items of one spec line into `spec`.
void parseSpecItems(std::string_view text, const std::string& origin, uint32_t line,
                    LaunchSpec& spec, std::vector<SpecError>& errors);

/// The `// kernelscope:` lines in the comment and attribute block right above the 1-based
/// line `kernelLine` of `source` (the kernel's name line; its `fn`/`__global__` line may be
/// above it). Returns an empty spec when there are none.
LaunchSpec specFromComments(std::string_view source, uint32_t kernelLine, const std::string& origin,
                            std::vector<SpecError>& errors);

/// A first spec for a kernel that has none, from its parameters, as the items of one
/// `// kernelscope:` line: the first integer parameter is the problem size (1 << 20, other
/// integers 1024, floats 1.0), inputs are buffers of that size (floats uniform(-1, 1), integers
/// iota), outputs zeros,
/// one thread per element in blocks of 256. Meant to be edited.
std::string specSkeleton(const KernelSignature&);

/// How a buffer is filled before the launch.
struct Fill {
  enum class Kind : uint8_t { Zeros, Ones, Constant, Iota, Uniform, File };
  Kind kind = Kind::Zeros;
  double value = 0;       // Constant
  double lo = 0, hi = 1;  // Uniform
  uint64_t seed = 0;      // Uniform
  std::string file;       // File: as written in the spec
};

/// One argument as it is passed: a scalar's bytes, or a device buffer to allocate and fill.
struct ArgPlan {
  std::string name;
  bool buffer = false;
  std::vector<uint8_t> scalar;  // the parameter's bytes (little-endian)
  ElemType elem = ElemType::F32;
  uint64_t count = 0;
  Fill fill;
  bool output = false;  // written by the kernel (a *mut / non-const pointer)
  std::string origin;   // where its spec item was written (for file paths)
  uint32_t line = 0;
  uint64_t byteSize() const { return count * elemSize(elem); }
};

/// A spec evaluated against a kernel's parameters: everything a launch needs.
struct LaunchPlan {
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<ArgPlan> args;
  std::optional<double> bytes;  // bytes one launch moves, when the spec says
  std::optional<double> flops;  // operations one launch does, when the spec says
  /// The size of every buffer together (the default for `bytes`).
  uint64_t bufferBytes() const;
};

/// Whether `name` is an identifier (ASCII letters, digits, `_`; not starting with a digit):
/// what a spec key and a parameter name must be, and so a safe file name.
bool isPlainParameterName(std::string_view name);

/// The largest buffer a spec may ask for (bigger is surely a mistake).
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 40;

/// Evaluates `spec` for `sig`: every parameter must have a value of its kind, every key
/// must be known. Errors name the spec item's line.
std::optional<LaunchPlan> resolveSpec(const LaunchSpec&, const KernelSignature&,
                                      std::vector<SpecError>& errors);

/// Evaluates one expression with no variables (tests, command-line values).
std::optional<double> evaluateExpression(std::string_view text, std::string& error);

/// The bytes of a `file(...)` buffer: a .npy (dtype and element count checked against the
/// buffer) or a raw file (at least the buffer's size). The path is relative to the spec's
/// file and must stay inside `root` (the workspace) and be a regular file. Returns the
/// problem ("" when `data` was read).
std::string readBufferFile(const ArgPlan&, const std::filesystem::path& specDir,
                           const std::filesystem::path& root, std::string& data);

}  // namespace ks::gpu
