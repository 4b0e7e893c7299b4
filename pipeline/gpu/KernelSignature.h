// A kernel's parameters: how many and how large from the parsed PTX, their names and types
// from the source declaration.
//
// Rust kernels take pointers, every scalar (i8 ... u64, f16, bf16, f32, f64, bool), and
// `#[repr(C)]` structs and arrays by value; the PTX passes the aggregates as byte arrays
// (`.param .align 4 .b8 poly_eval_param_0[12]`). The source's types are laid out as repr(C)
// lays them out (each field at the next multiple of its alignment, the size rounded up to the
// largest alignment) and checked against the PTX parameter's size and alignment, so that a
// spec's `Params { scale: 2.0, n: 1 << 20 }` becomes exactly the bytes the kernel reads.
// The declarations are read by a small hand-written scanner: the kernel's signature and the
// struct declarations of its file are all that is needed, not a Rust parser.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Artifact.h"
#include "LaunchPlan.h"

namespace ks::gpu {

/// A parameter as the PTX declares it.
struct PtxParam {
  std::string name;        // "saxpy_param_0"
  uint32_t bytes = 0;      // `.u32`: 4; `.b8 NAME[12]`: 12
  uint32_t align = 0;      // the `.align` given, else the size
  bool aggregate = false;  // `.b8 NAME[N]`: a struct or array passed by value
};

/// The parameters of `kernel`, one of `ptx`'s functions, from its header lines.
std::vector<PtxParam> ptxParams(const Artifact& ptx, const ArtifactFunction& kernel);

struct ValueType;
using TypeRef = std::shared_ptr<const ValueType>;

/// A type of the source as a parameter or a buffer element holds it, with its repr(C) layout.
struct ValueType {
  enum class Kind : uint8_t { Scalar, Struct, Array };
  struct Field {
    std::string name;
    TypeRef type;
    uint64_t offset = 0;
  };
  Kind kind = Kind::Scalar;
  std::string name;                // "f32", "Params", "[f32; 4]"
  ElemType scalar = ElemType::U8;  // Scalar
  std::vector<Field> fields;       // Struct, in declaration order
  TypeRef element;                 // Array
  uint64_t count = 0;              // Array
  uint64_t size = 0, align = 1;
  /// "Params { scale: f32, bias: f32, n: u32 } (12 bytes)": for errors.
  std::string describe() const;
};

TypeRef scalarType(ElemType);

/// One parameter of a kernel: its size from the PTX, its name and type from the source
/// signature when there is one.
struct KernelParam {
  enum class Kind : uint8_t { Unknown, Pointer, Integer, Float, Bool, Aggregate };
  std::string name;  // as in the source; "param_N" when only the PTX is known
  unsigned bytes = 0;
  unsigned align = 0;
  Kind kind = Kind::Unknown;     // Aggregate with a null `aggregate`: its type is unknown
  std::optional<ElemType> type;  // a scalar's type (source), e.g. u32
  TypeRef pointee;               // a pointer's element type (source), e.g. f32 or Params
  bool pointeeMutable = false;   // *mut T / T* without const: an output
  TypeRef aggregate;             // a struct or array by value (source)
  std::string pointeeProblem;    // why a pointer's element type could not be laid out
  /// The type as the source names it ("*mut f32", "Params", "u32"), or "N-byte value".
  std::string typeName() const;
};

struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
};

/// `kernel`'s parameters from the PTX alone, named param_0, param_1 ...
KernelSignature ptxSignature(const Artifact& ptx, const ArtifactFunction& kernel);

/// Names and types `sig`'s parameters from the function declared at `nameOffset` (the byte
/// offset of its name) in `source`, Rust or (with `cuda`) CUDA C++; structs are looked up
/// among `source`'s declarations. Returns why not ("" when done): a source signature that
/// does not match the PTX's parameters is not used.
std::string addSourceSignature(KernelSignature& sig, std::string_view source, size_t nameOffset,
                               bool cuda);

/// The layout of the Rust type `text` ("Params", "[f32; 4]", "u32") with the structs declared
/// in `source`; nullopt with `problem` when it cannot be laid out.
std::optional<TypeRef> rustType(std::string_view text, std::string_view source,
                                std::string& problem);

}  // namespace ks::gpu
