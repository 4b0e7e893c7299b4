// A launch spec evaluated against a kernel's real parameters into a launch plan.
//
// Keys (SpecText.h says where specs are written):
//   grid, block       an expression or a list `[x, y]` / `[x, y, z]`
//   shared            dynamic shared memory in bytes (default 0)
//   bytes, flops      what one launch moves and computes, for bandwidth and throughput
//                     (default bytes: the size of every buffer)
//   PARAM             each kernel parameter by its source name, with a value of its type:
//                       a number (Expression.h) for a scalar: `n = 1 << 20`, `on = true`
//                       a struct literal for a struct: `p = Params { scale: 2.0, n: n }`
//                       an array literal for an array: `w = [0.25, 0.5, 0.25]`, `z = [0; 8]`
//                       a buffer (Buffers.h) for a pointer: `x = f32[n] uniform(-1, 1)`
// Scalars, and the fields of struct parameters (`p.n`), are names in the other expressions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Buffers.h"
#include "Expression.h"
#include "KernelSignature.h"
#include "LaunchPlan.h"
#include "SpecText.h"

namespace ks::gpu {

/// Evaluates `spec` for `sig`: every parameter must have a value of its type, every key
/// must be known. Errors name the spec item's line and the parameter's real type.
std::optional<LaunchPlan> resolveSpec(const LaunchSpec&, const KernelSignature&,
                                      std::vector<SpecError>& errors);

}  // namespace ks::gpu
