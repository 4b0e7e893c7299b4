// The server on the real pipeline for tests: options with the real compiler (and the real GPU
// jobs), and the skip for machines without the toolchain.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "Engine.h"
#include "SourceText.h"
#include "TestClient.h"

namespace ks::test {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The 0-based line of `text` that contains `needle`.
inline int lineOf(const std::string& text, std::string_view needle) {
  auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string_view::npos) return static_cast<int>(i);
  FAIL("no line contains " << needle);
  return -1;
}

inline server::ServerOptions realOptions(Engine*& out, ToolchainSettings settings = {}) {
  static std::vector<std::unique_ptr<Engine>> keep;
  keep.push_back(std::make_unique<Engine>(settings, nullptr));
  out = keep.back().get();
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  server::useEngine(o, *out, settings.rustc);
  return o;
}

inline bool toolchainUsable() {
  static const bool usable = [] {
    Toolchain tc = discoverToolchain();
    return tc.rustc.found() && tc.sysroot.found();
  }();
  return usable;
}

}  // namespace ks::test

// A test that needs the real rustc and nvptx64 sysroot says so and passes without them.
#define SKIP_WITHOUT_TOOLCHAIN()                                                      \
  do {                                                                                \
    if (!ks::test::toolchainUsable()) {                                               \
      MESSAGE("skipped: no usable rustc and nvptx64 sysroot (run scripts/setup.sh)"); \
      return;                                                                         \
    }                                                                                 \
  } while (false)
