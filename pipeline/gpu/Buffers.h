// Buffers in a launch spec: `NAME = TYPE[LENGTH] CONTENTS`.
//
// TYPE is a scalar type (f32, u8, f16, bf16, bool, ...) or a `#[repr(C)]` struct of the
// kernel's file; CONTENTS is zeros (the default), ones, fill(V), iota,
// uniform(LO, HI, seed = S) or file("x.npy" | "x.bin"); a buffer of structs takes zeros,
// fill(Params { ... }) or a file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "Expression.h"
#include "LaunchPlan.h"

namespace ks::gpu {

/// A buffer's value split into its parts; nullopt when `value` is not `TYPE[LENGTH] ...`.
struct BufferValue {
  std::string type, length, contents;
};
std::optional<BufferValue> bufferValue(std::string_view value);

/// The contents' words, for errors.
inline constexpr const char* kContentsHelp =
    "(zeros, ones, fill(V), iota, uniform(LO, HI, seed = S), file(\"PATH\"))";

/// Reads CONTENTS into `fill` (numbers through `lookup`); returns the problem ("" when read).
/// `fill(...)` of a struct value is left to the caller: fill.kind Pattern with `patternText`.
std::string readContents(std::string contents, const NameLookup& lookup, Fill& fill,
                         std::string& patternText);

/// The bytes of a `file(...)` buffer: a .npy (dtype and element count checked against the
/// buffer) or a raw file (the buffer's size). The path is relative to the spec's file and must
/// stay inside `root` (the workspace) and be a regular file. Returns the problem ("" when
/// `data` was read).
std::string readBufferFile(const ArgPlan&, const std::filesystem::path& specDir,
                           const std::filesystem::path& root, std::string& data);

}  // namespace ks::gpu
