// Expected text written in the test, as rust-analyzer's expect-test writes it: a table row
// names its input and, in a raw string, what the feature answers in a compact text form.
// `EXPECT(R"~(...)~")` remembers where it stands; a mismatch fails with both texts, and with
// UPDATE_EXPECT=1 the test's source is rewritten with what was found instead (review the diff).
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>

namespace ks::test {

class Expect {
 public:
  Expect(std::string_view text, const char* file, int line)
      : text_(trimmed(text)), file_(file), line_(line) {}

  /// Checks `actual` (its surrounding blank lines aside) against the expected text.
  void check(const std::string& actual) const {
    const std::string found = trimmed(actual);
    if (found == text_) return;
    if (const char* u = std::getenv("UPDATE_EXPECT"); u && std::string(u) == "1") {
      Patches::instance().add(file_, line_, found);
      MESSAGE("updated the expectation at " << file_ << ":" << line_);
      return;
    }
    FAIL_CHECK("expected (" << file_ << ":" << line_ << ", UPDATE_EXPECT=1 rewrites it):\n"
                            << text_ << "\nfound:\n"
                            << found);
  }

 private:
  static std::string trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == '\n' || text.front() == ' ')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    return std::string(text);
  }

  /// The rewrites UPDATE_EXPECT asked for, applied to each file when the test program ends,
  /// last line first, so that a rewrite does not move the ones above it.
  class Patches {
   public:
    static Patches& instance() {
      static Patches patches;
      return patches;
    }
    void add(const std::string& file, int line, std::string text) {
      std::lock_guard lock(mutex_);
      files_[file][line] = std::move(text);
    }
    ~Patches() {
      for (const auto& [file, byLine] : files_) apply(file, byLine);
    }

   private:
    // `line` is where the compiler says the EXPECT stands: its first line or, for one over
    // several lines, perhaps its last. Either way the last EXPECT that opens on it or before
    // it is that one (they do not nest; keep one to a line).
    static void apply(const std::string& file, const std::map<int, std::string>& byLine) {
      std::ifstream in(file, std::ios::binary);
      std::stringstream buffer;
      buffer << in.rdbuf();
      std::string source = buffer.str();
      for (auto it = byLine.rbegin(); it != byLine.rend(); ++it) {
        size_t end = 0;
        for (int l = 0; l < it->first && end != std::string::npos; ++l)
          end = source.find('\n', end == 0 ? 0 : end + 1);
        // clang-format may break the line between `EXPECT(` and the raw string.
        const size_t macro = source.rfind("EXPECT(", end);
        const size_t open = macro == std::string::npos ? macro : source.find("R\"~(", macro);
        const size_t close = open == std::string::npos ? open : source.find(")~\"", open);
        if (close == std::string::npos) continue;
        const size_t text = open + 4;
        const bool oneLine = it->second.find('\n') == std::string::npos;
        source.replace(text, close - text, oneLine ? it->second : "\n" + it->second + "\n");
      }
      std::ofstream(file, std::ios::binary) << source;
    }
    std::mutex mutex_;
    std::map<std::string, std::map<int, std::string>> files_;
  };

  std::string text_;
  std::string file_;
  int line_;
};

}  // namespace ks::test

/// An expected text at this place in the test's source (see Expect).
#define EXPECT(text) ::ks::test::Expect(text, __FILE__, __LINE__)
