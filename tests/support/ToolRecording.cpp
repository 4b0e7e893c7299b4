// Recorded tool runs: see ToolRecording.h.
#include "ToolRecording.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>

#include "Files.h"
#include "StableHash.h"

namespace ks::test {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Where a replayed toolchain's tools seem to be: nothing there is read or started.
const fs::path kRecordedToolchain = "/nonexistent/kernelscope-recorded-toolchain";

void replaceAll(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// Binary files (a cubin) are kept byte for byte: a path replaced inside would move its sections.
bool isText(std::string_view content) { return content.find('\0') == std::string_view::npos; }

std::string tempBase() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = tmpdir && *tmpdir ? tmpdir : "/tmp";
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

/// Names each temporary directory `text` mentions (a folder right under $TMPDIR) by the next
/// free `${TMPn}`, in the order they come.
void nameTemps(const std::string& text, std::map<std::string, std::string>& temps) {
  const std::string prefix = tempBase() + "/";
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    size_t end = at + prefix.size();
    while (end < text.size() && isNameChar(text[end])) ++end;
    if (end == at + prefix.size()) continue;
    std::string root = text.substr(at, end - at);
    if (!temps.count(root)) temps[root] = "${TMP" + std::to_string(temps.size() + 1) + "}";
  }
}

/// The paths a command word names under a placeholder of `placeholders` (`-o ${TMP1}/k.cubin`,
/// `--emit=mir=${TMP1}/k.mir,llvm-ir=${TMP1}/k.ll`).
std::vector<std::string> placedPaths(const std::string& word,
                                     const std::vector<std::string>& placeholders) {
  std::vector<std::string> out;
  for (const std::string& p : placeholders)
    for (size_t at = word.find(p); at != std::string::npos; at = word.find(p, at + 1)) {
      size_t end = word.find_first_of(",= ", at);
      out.push_back(word.substr(at, end == std::string::npos ? std::string::npos : end - at));
    }
  return out;
}

struct FileState {
  uintmax_t size;
  fs::file_time_type time;
  bool operator==(const FileState&) const = default;
};

/// The regular files under `roots`, with what tells a rewritten one.
std::map<fs::path, FileState> filesUnder(const std::map<std::string, fs::path>& roots) {
  std::map<fs::path, FileState> out;
  for (const auto& [placeholder, root] : roots) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec)) out[it->path()] = {it->file_size(ec), it->last_write_time(ec)};
  }
  return out;
}

std::string toolName(const std::string& word) {
  // "${RUSTC}" -> "rustc"; a tool outside the toolchain by its file name.
  if (word.starts_with("${") && word.ends_with("}")) {
    std::string name = word.substr(2, word.size() - 3);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name;
  }
  return fs::path(word).filename().string();
}

void writeFile(const fs::path& path, std::string_view content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

json readJson(const fs::path& path) {
  const std::string text = readWholeFile(path);
  if (text.empty()) throw std::runtime_error("no recording in " + path.parent_path().string());
  return json::parse(text);
}

}  // namespace

std::string NormalisedCommand::display() const {
  std::string out;
  for (const std::string& w : words) {
    if (w.starts_with("cwd=") || w.starts_with("env ") || w.starts_with("stdin ") ||
        w.starts_with("input "))
      break;
    out += out.empty() ? toolName(w) : " " + w;
  }
  return out;
}

PathPlaceholders::PathPlaceholders(const Toolchain& tc, const fs::path& sourceDir) {
  const std::pair<fs::path, std::string> known[] = {
      {tc.sysroot.path, "${SYSROOT}"},   {tc.rustc.path, "${RUSTC}"}, {tc.ptxas.path, "${PTXAS}"},
      {tc.nvdisasm.path, "${NVDISASM}"}, {tc.nvcc.path, "${NVCC}"},   {tc.rustSrc, "${RUST_SRC}"},
      {tc.cacheDir, "${CACHE}"},         {sourceDir, "${SRC}"}};
  for (const auto& [path, placeholder] : known) {
    if (path.empty() || path == "/") continue;
    paths_.emplace_back(path.lexically_normal().string(), placeholder);
    given_.emplace(placeholder, path.lexically_normal().string());
    std::error_code ec;
    // rustc names its sources by their real paths.
    const fs::path real = fs::canonical(path, ec);
    if (!ec && real != path.lexically_normal()) paths_.emplace_back(real.string(), placeholder);
  }
  // A path inside another (rustc inside its sysroot) goes first.
  std::stable_sort(paths_.begin(), paths_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string PathPlaceholders::toPlaceholders(
    std::string text, const std::map<std::string, std::string>& temps) const {
  for (const auto& [path, placeholder] : paths_) replaceAll(text, path, placeholder);
  for (const auto& [root, placeholder] : temps) replaceAll(text, root, placeholder);
  return text;
}

std::string PathPlaceholders::fromPlaceholders(std::string text,
                                               const std::map<std::string, fs::path>& temps) const {
  for (const auto& [placeholder, root] : temps) replaceAll(text, placeholder, root.string());
  for (const auto& [placeholder, path] : given_) replaceAll(text, placeholder, path);
  return text;
}

NormalisedCommand PathPlaceholders::normalise(const ProcessSpec& spec) const {
  std::map<std::string, std::string> temps;  // this run's directory -> "${TMPn}"
  nameTemps(spec.cwd.string(), temps);
  for (const std::string& a : spec.argv) nameTemps(a, temps);
  for (const auto& [name, value] : spec.env) nameTemps(value, temps);

  NormalisedCommand n;
  for (const auto& [root, placeholder] : temps) n.temps[placeholder] = root;
  for (const std::string& a : spec.argv) n.words.push_back(toPlaceholders(a, temps));
  if (!spec.cwd.empty()) n.words.push_back("cwd=" + toPlaceholders(spec.cwd.string(), temps));
  for (const auto& [name, value] : spec.env)
    n.words.push_back("env " + name + "=" + toPlaceholders(value, temps));
  if (!spec.stdinText.empty())
    n.words.push_back("stdin " + bytesDigest(toPlaceholders(spec.stdinText, temps)));
  // What the command reads from the source tree and the temporary directories, by content:
  // a recording answers only the inputs it was made from.
  std::vector<std::string> places = {"${SRC}"};
  for (const auto& [placeholder, root] : n.temps) places.push_back(placeholder);
  std::set<std::string> inputs;
  for (size_t i = 0; i < spec.argv.size(); ++i)
    for (const std::string& p : placedPaths(n.words[i], places)) {
      const fs::path path = fromPlaceholders(p, n.temps);
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) continue;
      // A binary input (a cubin) holds the paths of the run that made it: it is named only,
      // the text it was made from is matched where it was an input.
      std::string content = readWholeFile(path);
      inputs.insert("input " + p + " " +
                    (isText(content) ? bytesDigest(toPlaceholders(std::move(content), temps))
                                     : std::string("binary")));
    }
  n.words.insert(n.words.end(), inputs.begin(), inputs.end());
  return n;
}

// ---------------------------------------------------------------------------------------

RecordingRunner::RecordingRunner(const Toolchain& real, const fs::path& sourceDir)
    : toolchain_(real), placeholders_(real, sourceDir) {
  toolchain_.runner.reset();
}

ProcessResult RecordingRunner::run(const ProcessSpec& spec) const {
  NormalisedCommand n = placeholders_.normalise(spec);
  const auto before = filesUnder(n.temps);
  ProcessResult r = toolchain_.run(spec);
  std::map<std::string, std::string> temps;
  for (const auto& [placeholder, root] : n.temps) temps[root.string()] = placeholder;
  if (!r.started || r.timedOut || r.cancelled) {
    // Not an answer a replay could give: save() refuses the recording, naming it.
    std::lock_guard lock(mutex_);
    unrecordable_.push_back(n.display() + ": " + (r.started ? r.describe() : r.error));
    return r;
  }
  RecordedRun run{n.words,
                  r.exitCode,
                  r.signal,
                  placeholders_.toPlaceholders(r.out, temps),
                  placeholders_.toPlaceholders(r.err, temps),
                  {}};
  for (const auto& [path, state] : filesUnder(n.temps)) {
    auto was = before.find(path);
    if (was != before.end() && was->second == state) continue;
    std::string content = readWholeFile(path);
    if (isText(content)) content = placeholders_.toPlaceholders(std::move(content), temps);
    run.files[placeholders_.toPlaceholders(path.string(), temps)] = std::move(content);
  }
  std::lock_guard lock(mutex_);
  runs_.push_back(std::move(run));
  return r;
}

std::vector<RecordedRun> RecordingRunner::runs() const {
  std::lock_guard lock(mutex_);
  return runs_;
}

void RecordingRunner::save(const fs::path& dir) const {
  {
    std::lock_guard lock(mutex_);
    if (!unrecordable_.empty())
      throw std::runtime_error("cannot record " + dir.string() + ": " + unrecordable_.front());
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeFile(dir / "toolchain.json", toolchainVersions(toolchain_));
  json commands = json::array();
  std::set<std::vector<std::string>> seen;
  size_t number = 0;
  for (const RecordedRun& run : runs()) {
    if (!seen.insert(run.command).second) continue;  // the same command again: the same answer
    const std::string stem =
        std::to_string(++number) + "-" + toolName(run.command.empty() ? "" : run.command[0]);
    json entry = {{"command", run.command}, {"exit", run.exitCode}, {"signal", run.signal}};
    for (const auto& [stream, text] :
         {std::pair{"stdout", &run.out}, std::pair{"stderr", &run.err}}) {
      if (text->empty()) continue;
      writeFile(dir / (stem + "." + stream), *text);
      entry[stream] = stem + "." + stream;
    }
    json files = json::object();
    for (const auto& [path, content] : run.files) {
      const std::string name = stem + "-" + fs::path(path).filename().string();
      writeFile(dir / name, content);
      files[path] = name;
    }
    entry["files"] = std::move(files);
    commands.push_back(std::move(entry));
  }
  writeFile(dir / "commands.json", commands.dump(1) + "\n");
}

// ---------------------------------------------------------------------------------------

ReplayingRunner::ReplayingRunner(const fs::path& dir, const Toolchain& toolchain,
                                 const fs::path& sourceDir)
    : placeholders_(toolchain, sourceDir) {
  for (const json& entry : readJson(dir / "commands.json")) {
    RecordedRun run;
    run.command = entry.at("command").get<std::vector<std::string>>();
    run.exitCode = entry.at("exit").get<int>();
    run.signal = entry.at("signal").get<int>();
    if (entry.contains("stdout")) run.out = readWholeFile(dir / entry["stdout"].get<std::string>());
    if (entry.contains("stderr")) run.err = readWholeFile(dir / entry["stderr"].get<std::string>());
    for (const auto& [path, name] : entry.at("files").items())
      run.files[path] = readWholeFile(dir / name.get<std::string>());
    runs_.push_back(std::move(run));
  }
}

ProcessResult ReplayingRunner::run(const ProcessSpec& spec) const {
  const NormalisedCommand n = placeholders_.normalise(spec);
  ProcessResult r;
  auto found = std::find_if(runs_.begin(), runs_.end(),
                            [&](const RecordedRun& run) { return run.command == n.words; });
  if (found == runs_.end()) {
    r.error = whyNoRecording(n);
    std::lock_guard lock(mutex_);
    misses_.push_back(r.error);
    return r;
  }
  for (const auto& [path, content] : found->files)
    writeFile(placeholders_.fromPlaceholders(path, n.temps),
              isText(content) ? placeholders_.fromPlaceholders(content, n.temps) : content);
  r.started = true;
  r.exitCode = found->exitCode;
  r.signal = found->signal;
  r.out = placeholders_.fromPlaceholders(found->out, n.temps);
  r.err = placeholders_.fromPlaceholders(found->err, n.temps);
  return r;
}

std::string ReplayingRunner::whyNoRecording(const NormalisedCommand& n) const {
  std::string why = "no recording for: " + n.display();
  // The recorded command of the same tool that agrees longest, and where it parts.
  const RecordedRun* nearest = nullptr;
  size_t agreed = 0;
  for (const RecordedRun& run : runs_) {
    if (run.command.empty() || n.words.empty() || run.command[0] != n.words[0]) continue;
    auto parts =
        std::mismatch(run.command.begin(), run.command.end(), n.words.begin(), n.words.end());
    const size_t same = static_cast<size_t>(parts.first - run.command.begin());
    if (!nearest || same > agreed) nearest = &run, agreed = same;
  }
  if (!nearest) return why + " (the recording has no command of this tool)";
  auto word = [](const std::vector<std::string>& words, size_t i) {
    return i < words.size() ? "`" + words[i] + "`" : std::string("nothing");
  };
  return why + " (the nearest recorded one has " + word(nearest->command, agreed) +
         " where this has " + word(n.words, agreed) + "; re-record: tests/golden/tools/README.md)";
}

std::vector<std::string> ReplayingRunner::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

// ---------------------------------------------------------------------------------------

std::string toolchainVersions(const Toolchain& tc) {
  json j = {{"rustc", tc.rustc.version},       {"rustcRelease", tc.rustcRelease},
            {"rustcLlvm", tc.rustcLlvm},       {"ptxas", tc.ptxas.version},
            {"nvdisasm", tc.nvdisasm.version}, {"cudaRelease", tc.cudaRelease}};
  return j.dump(1) + "\n";
}

Toolchain replayToolchain(const fs::path& dir, const fs::path& sourceDir) {
  const json versions = readJson(dir / "toolchain.json");
  Toolchain tc;
  auto tool = [](ToolInfo& t, const std::string& name, const fs::path& path, std::string version) {
    t.name = name;
    t.path = path;
    t.version = std::move(version);
  };
  tool(tc.rustc, "rustc", kRecordedToolchain / "bin/rustc", versions.at("rustc"));
  tool(tc.sysroot, "sysroot", kRecordedToolchain / "sysroot", "");
  tool(tc.ptxas, "ptxas", kRecordedToolchain / "cuda/bin/ptxas", versions.at("ptxas"));
  tool(tc.nvdisasm, "nvdisasm", kRecordedToolchain / "cuda/bin/nvdisasm", versions.at("nvdisasm"));
  tc.rustSrc = kRecordedToolchain / "sysroot/lib/rustlib/src/rust/library";
  tc.rustcRelease = versions.at("rustcRelease");
  tc.rustcLlvm = versions.at("rustcLlvm");
  tc.cudaRelease = versions.at("cudaRelease");
  tc.runner = std::make_shared<ReplayingRunner>(dir, tc, sourceDir);
  return tc;
}

}  // namespace ks::test
