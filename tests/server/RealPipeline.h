// The server on the real pipeline for tests: options with the real compiler (and the real GPU
// jobs); RequireToolchain.h gates the tests that need it.
#pragma once

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

inline server::ServerOptions realOptions(Engine*& out, ToolchainSettings settings = {}) {
  static std::vector<std::unique_ptr<Engine>> keep;
  keep.push_back(std::make_unique<Engine>(settings, nullptr));
  out = keep.back().get();
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  server::useEngine(o, *out, settings.rustc);
  return o;
}

}  // namespace ks::test
