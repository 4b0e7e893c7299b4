// A first launch spec for a kernel that has none, from its parameters: what the "Add launch
// spec" action and `run` without a spec write (SpecText.h says where specs are written).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "KernelSignature.h"

namespace ks::gpu {

/// A first spec for a kernel that has none, from its parameters, as the items of one
/// `// kernelscope:` line: the first integer parameter (or integer field of a struct
/// parameter) is the problem size (1 << 20, other integers 1024, floats 1.0), inputs are
/// buffers of that size (floats uniform(-1, 1), integers iota), outputs zeros, one thread per
/// element in blocks of 256. Meant to be edited; it always resolves for the kernel
/// (resolveSpec, LaunchSpec.h).
std::string specSkeleton(const KernelSignature&);
/// specSkeleton's items, key and value, in its order: the parameters, then grid and block.
std::vector<std::pair<std::string, std::string>> specSkeletonItems(const KernelSignature&);

}  // namespace ks::gpu
