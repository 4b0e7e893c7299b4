// The features on canned snapshots: a recorded kernel (tests/golden/tools/) compiled on its
// recording, so no tool runs, and a table-driven check per feature in the style of
// rust-analyzer's `check(ra_fixture, expect![[...]])`: each row names a place in the kernel by
// a snippet of its line, with `$0` where the cursor stands, and what the feature answers
// there in a compact text form (EXPECT, tests/support/Expect.h; UPDATE_EXPECT=1 rewrites it).
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <sstream>
#include <string>

#include "ArtifactView.h"
#include "Compile.h"
#include "Expect.h"
#include "Features.h"
#include "Files.h"
#include "TextUtil.h"
#include "ToolRecording.h"
#include "Uri.h"

namespace ks::test {

/// The Snapshot of `kernel` (relative to the source tree: "examples/saxpy.rs") compiled with
/// the default options on its recording; made once per test run.
inline std::shared_ptr<const server::Snapshot> recordedSnapshot(const std::string& kernel) {
  static std::map<std::string, std::shared_ptr<const server::Snapshot>> made;
  if (auto it = made.find(kernel); it != made.end()) return it->second;
  const std::filesystem::path source = KS_SOURCE_DIR;
  const std::filesystem::path file = source / kernel;
  const std::filesystem::path recording = source / "tests/golden/tools" / file.stem();
  const Toolchain tc = replayToolchain(recording, source);
  auto result = std::make_shared<const CompileResult>(
      compileKernel(tc, {file, std::nullopt}, resolveOptions({})));
  const auto misses = std::dynamic_pointer_cast<const ReplayingRunner>(tc.runner)->misses();
  REQUIRE_MESSAGE(misses.empty(), misses.front());
  REQUIRE(result->succeeded);
  auto s = std::make_shared<server::Snapshot>();
  s->path = normalizePath(file.string());
  s->uri = lsp::pathToFileUri(s->path);
  s->revision = 1;
  s->text = readWholeFile(file);
  s->result = std::move(result);
  return made.emplace(kernel, std::move(s)).first->second;
}

/// Where `$0` stands in the first line of `text` that holds `fixture` (without the `$0`):
/// 0-based line and character.
inline lsp::Position cursor(const std::string& text, std::string_view fixture) {
  const size_t mark = fixture.find("$0");
  REQUIRE_MESSAGE(mark != std::string_view::npos, "no $0 in " << fixture);
  const std::string snippet =
      std::string(fixture.substr(0, mark)) + std::string(fixture.substr(mark + 2));
  const auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    if (size_t at = lines[i].find(snippet); at != std::string_view::npos)
      return {static_cast<int>(i), static_cast<int>(at + mark)};
  FAIL("no line holds " << snippet);
  return {};
}

/// A range as `3:4-3:9` (0-based, as on the wire).
inline std::string rangeText(const lsp::Range& r) {
  return std::to_string(r.start.line) + ":" + std::to_string(r.start.character) + "-" +
         std::to_string(r.end.line) + ":" + std::to_string(r.end.character);
}

/// `text` with the paths of this checkout and of the replayed toolchain as `${SRC}` and
/// `${SYSROOT}`: an expectation holds in every checkout.
inline std::string portable(std::string text) {
  static const std::string sysroot =
      replayToolchain(std::filesystem::path(KS_SOURCE_DIR) / "tests/golden/tools/saxpy",
                      KS_SOURCE_DIR)
          .sysroot.path.string();
  for (const auto& [path, placeholder] :
       {std::pair{std::string(KS_SOURCE_DIR), "${SRC}"}, std::pair{sysroot, "${SYSROOT}"}})
    for (size_t at = text.find(path); at != std::string::npos; at = text.find(path, at))
      text.replace(at, path.size(), placeholder);
  return text;
}

/// The lines the views show before one is asked for (the views' default filters), which the
/// server's hovers and inlay hints count then.
inline ShownLines shownByDefault(const server::Snapshot& s) {
  ShownLines shown;
  shown.filters = filterBits(defaultViewFilters());
  for (Stage stage : server::Settings{}.hoverStages)
    if (const StageOutcome* o = s.result->stage(stage); o && o->available)
      shown.lineFilters[stage] =
          std::make_shared<const std::vector<uint8_t>>(lineFilters(*o->artifact));
  return shown;
}

/// A hover's text, or `(none)`.
inline std::string hoverText(const std::optional<lsp::Hover>& hover) {
  return hover ? portable(hover->contents.value) : "(none)";
}

/// A table row on a source line of a recorded kernel: the kernel, the line (`$0` at the
/// cursor) and what the feature answers there.
struct SourceRow {
  const char* kernel;
  const char* fixture;
  Expect expect;
};

/// A table row on a line of a recorded kernel's generated text in `stage`.
struct ArtifactRow {
  const char* kernel;
  Stage stage;
  const char* fixture;
  Expect expect;
};

/// Checks each row against `answer(snapshot, line)`, the feature's answer on the row's
/// 0-based line as compact text.
inline void checkRows(std::span<const SourceRow> rows,
                      const std::function<std::string(const server::Snapshot&, int)>& answer) {
  for (const SourceRow& row : rows) {
    CAPTURE(row.fixture);
    auto s = recordedSnapshot(row.kernel);
    row.expect.check(answer(*s, cursor(s->text, row.fixture).line));
  }
}

/// Checks each row against `answer(snapshot, stage, line)` on the line of the stage's text.
inline void checkRows(
    std::span<const ArtifactRow> rows,
    const std::function<std::string(const server::Snapshot&, Stage, int)>& answer) {
  for (const ArtifactRow& row : rows) {
    CAPTURE(row.fixture);
    auto s = recordedSnapshot(row.kernel);
    const StageOutcome* stage = s->result->stage(row.stage);
    REQUIRE(stage);
    row.expect.check(answer(*s, row.stage, cursor(stage->artifact->text(), row.fixture).line));
  }
}

}  // namespace ks::test
