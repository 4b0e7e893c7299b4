// docs/architecture.md's code map and the README's Layout name the folders on disk, and every
// folder on disk is named in both: a map that a newcomer finds the house with stays true.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>

#include "Artifact.h"
#include "Files.h"
#include "TestSupport.h"
#include "TextUtil.h"

using namespace ks;

namespace {

namespace fs = std::filesystem;

/// Whether `folder` ("tests/e2e-artifacts/") is one of .gitignore's rooted folders ("/build*/",
/// "/tests/e2e-artifacts/"): build trees and test outputs are no part of the source.
bool ignored(const std::string& folder) {
  const std::string gitignore = readWholeFile(test::sourceDir() / ".gitignore");
  for (std::string_view line : splitLines(gitignore)) {
    if (!text::consume(line, "/") || !line.ends_with("/")) continue;
    if (line.ends_with("*/") ? folder.starts_with(line.substr(0, line.size() - 2)) : folder == line)
      return true;
  }
  return false;
}

/// The folders of the source tree as the maps name them ("pipeline/", "pipeline/model/"): the
/// top level, and one level down in the folders that hold one part each. Hidden and ignored
/// folders are no part of it; a folder's own `internal/` headers are its own.
std::set<std::string> foldersOnDisk() {
  const std::set<std::string> split = {"pipeline", "server", "editors", "tests"};
  std::set<std::string> out;
  for (const auto& top : fs::directory_iterator(test::sourceDir())) {
    const std::string name = top.path().filename().string();
    if (!top.is_directory() || name.starts_with(".") || ignored(name + "/")) continue;
    out.insert(name + "/");
    if (!split.contains(name)) continue;
    for (const auto& sub : fs::directory_iterator(top.path())) {
      const std::string folder = name + "/" + sub.path().filename().string() + "/";
      if (sub.is_directory() && !ignored(folder)) out.insert(folder);
    }
  }
  return out;
}

/// The lines of `doc` under its heading `heading` ("## Layout"), up to the next "## ".
std::vector<std::string_view> section(std::string_view doc, std::string_view heading) {
  std::vector<std::string_view> out;
  bool inside = false;
  for (std::string_view line : splitLines(doc)) {
    if (line.starts_with("## ")) inside = line.starts_with(heading);
    if (inside) out.push_back(line);
  }
  return out;
}

/// The backquoted name a line starts with after `prefix` ("`model/` — ..."), or "".
std::string leadingName(std::string_view line, std::string_view prefix) {
  if (!text::consume(line, prefix) || !text::consume(line, "`")) return {};
  const size_t end = line.find('`');
  return end == std::string_view::npos ? std::string() : std::string(line.substr(0, end));
}

/// The code map's folders: each `### `path/`` heading, and each entry under it: a line
/// "`name/` — ..." or a list item "- `name/` — ...".
std::set<std::string> codeMapFolders() {
  std::set<std::string> out;
  const std::string doc = readWholeFile(test::sourceDir() / "docs/architecture.md");
  std::string parent;
  for (std::string_view line : section(doc, "## Code map")) {
    if (std::string heading = leadingName(line, "### "); !heading.empty()) {
      parent = heading;
      out.insert(heading);
    } else if (std::string name = leadingName(line, line.starts_with("- ") ? "- " : "");
               name.ends_with("/") && !parent.empty()) {
      out.insert(parent + name);
    }
  }
  return out;
}

/// The README's Layout: a list whose top entries are the top-level folders and whose nested
/// entries are their folders.
std::set<std::string> layoutFolders() {
  std::set<std::string> out;
  const std::string doc = readWholeFile(test::sourceDir() / "README.md");
  std::string parent;
  for (std::string_view line : section(doc, "## Layout")) {
    if (std::string top = leadingName(line, "- "); top.ends_with("/")) {
      parent = top;
      out.insert(top);
    } else if (std::string name = leadingName(text::trim(line), "- "); name.ends_with("/")) {
      out.insert(parent + name);
    }
  }
  return out;
}

std::string difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string out;
  for (const auto& name : a)
    if (!b.contains(name)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

TEST_CASE("the code map and the README's Layout name exactly the folders on disk") {
  const std::set<std::string> disk = foldersOnDisk();
  REQUIRE(disk.contains("pipeline/model/"));  // the walk found the tree
  const std::set<std::string> map = codeMapFolders();
  CHECK_MESSAGE(difference(disk, map).empty(),
                "on disk, not in docs/architecture.md's code map: " << difference(disk, map));
  CHECK_MESSAGE(difference(map, disk).empty(),
                "in the code map, not on disk: " << difference(map, disk));
  const std::set<std::string> layout = layoutFolders();
  CHECK_MESSAGE(difference(disk, layout).empty(),
                "on disk, not in the README's Layout: " << difference(disk, layout));
  CHECK_MESSAGE(difference(layout, disk).empty(),
                "in the README's Layout, not on disk: " << difference(layout, disk));
}
