// A launch as the GPU machine receives it: grid, block and every argument's bytes or buffer,
// fully evaluated on the machine that compiled the kernel (pipeline/gpu evaluates the launch
// spec into this). Plain C++, no LLVM: `ks-gpu-exec` builds from this folder alone.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::gpu {

/// A buffer element or scalar parameter type. Record: an element of a `#[repr(C)]` struct or
/// array type, whose bytes the host laid out (ArgPlan::recordBytes long).
enum class ElemType : uint8_t {
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  Bool,
  Record
};

/// "f32", "u64", "bf16", "bool", ...; nullopt for anything else ("record" included: a record
/// is named by its Rust type).
std::optional<ElemType> elemTypeFromName(std::string_view);
std::string_view elemTypeName(ElemType);
/// numpy's dtype string for the type ("<f4"; "|V" for a record, "<u2" for bf16, which numpy
/// lacks).
std::string_view elemTypeNumpy(ElemType);
/// The size of one element; 0 for a record (its size is the plan's).
size_t elemSize(ElemType);
bool isFloat(ElemType);
bool isSigned(ElemType);

/// `v` as an IEEE half's bits (round to nearest even), a bfloat16's bits (the same from f32),
/// and back.
uint16_t halfFromDouble(double v);
double halfToDouble(uint16_t bits);
uint16_t bfloat16FromDouble(double v);
double bfloat16ToDouble(uint16_t bits);

/// How a buffer is filled before the launch.
struct Fill {
  enum class Kind : uint8_t { Zeros, Ones, Constant, Iota, Uniform, File, Pattern };
  Kind kind = Kind::Zeros;
  double value = 0;              // Constant
  double lo = 0, hi = 1;         // Uniform
  uint64_t seed = 0;             // Uniform
  std::string file;              // File: as written in the spec (host side only)
  std::vector<uint8_t> pattern;  // Pattern: one element's bytes, repeated (a record's value)
};

/// One argument as it is passed: a parameter's bytes (a scalar, struct or array by value), or
/// a device buffer to allocate and fill.
struct ArgPlan {
  std::string name;
  bool buffer = false;
  std::vector<uint8_t> scalar;  // the parameter's bytes (little-endian, laid out as the PTX's)
  ElemType elem = ElemType::F32;
  uint32_t recordBytes = 0;  // elem == Record: one element's size
  std::string typeName;      // the element's type as the source names it ("Params", "f32")
  uint64_t count = 0;
  Fill fill;
  bool output = false;  // written by the kernel (a *mut / non-const pointer)
  std::string origin;   // where its spec item was written (for file paths; host side only)
  uint32_t line = 0;
  uint64_t elementBytes() const { return elem == ElemType::Record ? recordBytes : elemSize(elem); }
  uint64_t byteSize() const { return count * elementBytes(); }
};

/// Everything a launch needs.
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
/// what a spec key, a parameter name and a struct's name and fields are, and so a safe file
/// name.
bool isPlainParameterName(std::string_view name);

/// The largest buffer a spec may ask for (bigger is surely a mistake).
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 40;
/// The largest parameter passed by value: the kernel parameter space of sm_70 and later
/// (32764 bytes; older GPUs take 4096, and their driver says so at launch).
constexpr uint32_t kMaxParamBytes = 32764;

}  // namespace ks::gpu
