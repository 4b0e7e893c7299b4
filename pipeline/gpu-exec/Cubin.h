// A cubin checked before the driver loads it.
//
// cuModuleLoadData trusts its input: a cubin cut short (its sizes still consistent with the
// message that carried it) crashed the driver inside gpu-exec. ptxas's cubins are 64-bit
// little-endian ELF files, so the header and the section and program header tables are
// checked to lie within the bytes, and every section's contents too.
#pragma once

#include <string>
#include <string_view>

namespace ks::gpu {

/// Why `cubin` is not a whole ELF file ("" when it is).
std::string checkCubin(std::string_view cubin);

}  // namespace ks::gpu
