// The server on the real pipeline for tests: options with the real compiler (and the real GPU
// jobs); RequireToolchain.h gates the tests that need it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "Engine.h"
#include "Files.h"
#include "RequireToolchain.h"
#include "SourceText.h"
#include "TestClient.h"

namespace ks::test {

/// The 0-based line of `text` that contains `needle`.
inline int lineOf(const std::string& text, std::string_view needle) {
  auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string_view::npos) return static_cast<int>(i);
  FAIL("no line contains " << needle);
  return -1;
}

/// Compares `actual` with the golden file, naming the first line that differs; UPDATE_GOLDEN=1
/// rewrites it instead.
inline void checkGolden(const std::filesystem::path& golden, const std::string& actual) {
  if (const char* u = std::getenv("UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream out(golden, std::ios::binary);
    out << actual;
    REQUIRE_MESSAGE(out.good(), "cannot write " << golden.string());
    MESSAGE("updated " << golden.string());
    return;
  }
  REQUIRE_MESSAGE(std::filesystem::exists(golden),
                  golden.string() << " is missing (UPDATE_GOLDEN=1 creates it)");
  const std::string expected = readWholeFile(golden.string());
  if (expected == actual) return;
  auto e = splitLines(expected), a = splitLines(actual);
  size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  FAIL(golden.string() << " differs at line " << i + 1 << " (UPDATE_GOLDEN=1 rewrites it)"
                       << "\n  expected: " << (i < e.size() ? std::string(e[i]) : "<end>")
                       << "\n  actual:   " << (i < a.size() ? std::string(a[i]) : "<end>"));
}

inline server::ServerOptions realOptions(Engine*& out, ToolchainSettings settings = {}) {
  static std::vector<std::unique_ptr<Engine>> keep;
  keep.push_back(std::make_unique<Engine>(settings, nullptr));
  out = keep.back().get();
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  server::useEngine(o, *out, settings.rustc);
  return o;
}

}  // namespace ks::test
