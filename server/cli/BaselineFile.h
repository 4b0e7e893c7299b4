// The baseline file of `kernelscope check` (`kernelscope-baseline.json` beside the crate's
// Cargo.toml, or --baseline FILE): each kernel's figures (Budgets.h) when it was blessed,
// for one arch. `check` compares with it and `--bless` writes it; `report --baseline`
// shows each kernel's figures against it.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "Budgets.h"

namespace ks {

/// The baseline's file name beside the crate's Cargo.toml when --baseline names none.
inline constexpr const char* kBaselineName = "kernelscope-baseline.json";

/// Reads a baseline written by --bless for `arch`; the problem, or "" (each value checked, a
/// damaged file is refused whole).
std::string readBaseline(const std::filesystem::path& file, const std::string& arch,
                         std::map<std::string, KernelFigures>& out);

/// One kernel's figures as the file holds them ({"registers": 32, ..., "block-size": 256}).
nlohmann::json figuresJson(const KernelFigures&);

/// Writes the baseline atomically; the problem, or "".
std::string writeBaseline(const std::filesystem::path& file, const std::string& arch, int optLevel,
                          const std::map<std::string, KernelFigures>& figures);

}  // namespace ks
