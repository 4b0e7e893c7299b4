// `kernelscope explain`, `doctor` and their errors, run as a user would run them.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "Process.h"
#include "TestSupport.h"

using namespace ks;

TEST_CASE("explain --line shows the SAXPY line in every stage") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  uint32_t line = f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);");
  auto r = test::runKernelscope({"explain", "examples/saxpy.rs", "--line", std::to_string(line)});
  CHECK(r.exitCode == 0);
  INFO(r.out << r.err);
  CHECK(r.out.find("*y.add(i) = a * *x.add(i) + *y.add(i);") != std::string::npos);
  for (const char* s : {"mir ", "llvm-ir ", "ptx ", "sass "})
    CHECK(r.out.find(s) != std::string::npos);
  CHECK(r.out.find("Mul(") != std::string::npos);
  CHECK(r.out.find("fmul float") != std::string::npos);
  CHECK((r.out.find("fma.rn.f32") != std::string::npos ||
         r.out.find("mul.rn.f32") != std::string::npos));
  CHECK((r.out.find("FFMA") != std::string::npos || r.out.find("FMUL") != std::string::npos));
  CHECK(r.out.find("via <*const f32>::add") != std::string::npos);
  CHECK(r.out.find("kernels (sm_90") != std::string::npos);
}

TEST_CASE("explain's cost line comes with the SASS it is read from, and not without it") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "examples/saxpy.rs");
  const std::string line = std::to_string(f.lineOf("*y.add(i) = a * *x.add(i) + *y.add(i);"));
  auto withSass = test::runKernelscope({"explain", "examples/saxpy.rs", "--line", line});
  REQUIRE_MESSAGE(withSass.exitCode == 0, withSass.err);
  INFO(withSass.out);
  CHECK(withSass.out.find("cost    peak ") != std::string::npos);
  CHECK(withSass.out.find("global load f32 ×2: coalesced") != std::string::npos);
  auto ptxOnly =
      test::runKernelscope({"explain", "examples/saxpy.rs", "--line", line, "--stages", "ptx"});
  REQUIRE_MESSAGE(ptxOnly.exitCode == 0, ptxOnly.err);
  INFO(ptxOnly.out);
  CHECK(ptxOnly.out.find("ptx ") != std::string::npos);
  CHECK(ptxOnly.out.find("cost ") == std::string::npos);
}

TEST_CASE("explain --json gives the same data to scripts") {
  test::requireToolchain();
  auto r = test::runKernelscope(
      {"explain", "examples/vector_add.rs", "--json", "--stages", "ptx,sass", "--arch", "sm_80"});
  REQUIRE(r.exitCode == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["arch"] == "sm_80");
  CHECK(j["stages"]["ptx"]["available"] == true);
  CHECK_FALSE(j["stages"].contains("mir"));
  REQUIRE(j["kernels"].size() == 1);
  CHECK(j["kernels"][0]["name"] == "vector_add");
  CHECK(j["kernels"][0]["registers"].get<int>() > 0);
  bool sawAdd = false;
  for (const auto& line : j["lines"])
    for (const auto& ins : line["stages"]["ptx"])
      sawAdd |= ins["text"].get<std::string>().starts_with("add.rn.f32");
  CHECK(sawAdd);

  // Each inline chain is listed once; an instruction names its own by index, and the PTX
  // and SASS of one chain name the same entry.
  const auto& chains = j["chains"];
  REQUIRE(chains.is_array());
  std::set<std::string> distinct;
  for (const auto& chain : chains) CHECK(distinct.insert(chain.dump()).second);
  std::map<std::string, std::set<int>> stagesOfChain;
  std::vector<bool> named(chains.size(), false);
  for (const auto& line : j["lines"])
    for (const auto& [stage, instructions] : line["stages"].items())
      for (const auto& ins : instructions) {
        const int index = ins["chain"].get<int>();
        REQUIRE(index >= 0);
        REQUIRE(static_cast<size_t>(index) < chains.size());
        named[index] = true;
        stagesOfChain[stage].insert(index);
        // The chain of an instruction a line made itself starts at that line.
        if (!ins["inlined"] && !ins["viaLibrary"] && !ins["guessed"] && !chains[index].empty())
          CHECK(chains[index][0]["line"] == line["line"]);
      }
  CHECK(std::find(named.begin(), named.end(), false) == named.end());
  bool viaCore = false;  // vector_add reads its thread index through core, inlined into it
  for (const auto& chain : chains)
    viaCore |= chain.size() > 1 && chain[0]["function"].get<std::string>().starts_with("core::") &&
               chain.back()["function"] == "vector_add";
  CHECK(viaCore);
  std::vector<int> shared;
  std::set_intersection(stagesOfChain["ptx"].begin(), stagesOfChain["ptx"].end(),
                        stagesOfChain["sass"].begin(), stagesOfChain["sass"].end(),
                        std::back_inserter(shared));
  CHECK_FALSE(shared.empty());
}

TEST_CASE("explain --json, written a line at a time, is what one dump of its object prints") {
  test::requireToolchain();
  // The lines are written one by one (a whole file's are hundreds of MB at 80 kernels); the
  // text must still be the JSON library's own, pretty and on one line alike.
  for (const char* file : {"examples/reduce_sum.rs", "tests/fixtures/iterators.rs"}) {
    CAPTURE(file);
    auto pretty = test::runKernelscope({"explain", file, "--json"});
    REQUIRE(pretty.exitCode == 0);
    auto j = nlohmann::json::parse(pretty.out);
    CHECK(j["lines"].size() > 3);
    CHECK(pretty.out == j.dump(2) + "\n");
    auto oneLine = test::runKernelscope({"explain", file, "--json", "--stream"});
    REQUIRE(oneLine.exitCode == 0);
    for (std::string_view line : splitLines(oneLine.out))
      CHECK(line == nlohmann::json::parse(line).dump());
  }
}

TEST_CASE("explain lists the code with no source line after the lines, in text and JSON") {
  test::requireToolchain();
  auto text =
      test::runKernelscope({"explain", "tests/fixtures/jump_table.rs", "--stages", "ptx,sass"});
  REQUIRE(text.exitCode == 0);
  INFO(text.out);
  size_t section = text.out.find("- | compiler-generated (no source line)");
  REQUIRE(section != std::string::npos);
  CHECK(section < text.out.find("kernels (sm_90"));
  CHECK(text.out.find("NOP;   (x", section) != std::string::npos);  // ptxas's padding, folded
  CHECK(text.out.find("   // in dispatch", section) != std::string::npos);

  auto json = test::runKernelscope(
      {"explain", "tests/fixtures/jump_table.rs", "--json", "--stages", "ptx,sass"});
  REQUIRE(json.exitCode == 0);
  auto j = nlohmann::json::parse(json.out);
  for (const char* s : {"ptx", "sass"}) {
    CAPTURE(s);
    REQUIRE(j["compilerGenerated"].contains(s));
    for (const auto& ins : j["compilerGenerated"][s]) {
      CHECK(ins["line"].get<int>() > 0);
      CHECK(ins["function"] == "dispatch");
    }
  }
  // Those instructions are under no source line.
  for (const auto& line : j["lines"])
    for (const auto& ins : line["stages"]["ptx"])
      for (const auto& gen : j["compilerGenerated"]["ptx"]) CHECK(ins["line"] != gen["line"]);
}

TEST_CASE("bad input: clear message and a non-zero exit") {
  auto missing = test::runKernelscope({"explain", "no/such/kernel.rs"});
  CHECK(missing.exitCode == 2);
  CHECK(missing.err.find("no/such/kernel.rs") != std::string::npos);

  auto arch = test::runKernelscope({"explain", "examples/saxpy.rs", "--arch", "sm_13"});
  CHECK(arch.exitCode == 2);
  CHECK(arch.err.find("unknown architecture 'sm_13'") != std::string::npos);

  auto option = test::runKernelscope({"explain", "examples/saxpy.rs", "--bogus"});
  CHECK(option.exitCode == 2);
  CHECK(option.err.find("--bogus") != std::string::npos);

  auto stage = test::runKernelscope({"explain", "examples/saxpy.rs", "--stages", "ptx,hip"});
  CHECK(stage.exitCode == 2);
  CHECK(stage.err.find("hip") != std::string::npos);

  auto past = test::runKernelscope({"explain", "examples/saxpy.rs", "--line", "9999"});
  CHECK(past.exitCode == 2);

  auto command = test::runKernelscope({"frobnicate"});
  CHECK(command.exitCode == 2);
}

TEST_CASE("a kernel that does not compile: file:line:col and exit 1") {
  test::requireToolchain();
  test::Fixture f(test::sourceDir() / "tests/fixtures/broken.rs");
  auto r = test::runKernelscope({"explain", "tests/fixtures/broken.rs"});
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("broken.rs:" + std::to_string(f.line("type_error")) +
                   ":18: error[E0308]: mismatched types") != std::string::npos);
  CHECK(r.err.find("does not compile") != std::string::npos);
}

TEST_CASE("a missing nvdisasm: the other stages are shown, and the exit says so") {
  test::requireToolchain();
  // A CUDA_HOME and cache without tools, and a PATH without ptxas, hide both CUDA tools.
  TempDir empty("kernelscope-nocuda");
  ProcessSpec spec;
  spec.argv = {KS_BINARY, "explain", "examples/saxpy.rs", "--stages", "ptx,sass"};
  spec.cwd = test::sourceDir();
  spec.env = {{"CUDA_HOME", empty.path().string()},
              {"PATH", "/usr/bin:/bin"},
              {"KERNELSCOPE_CACHE_DIR", (empty.path() / "cache").string()}};
  // The sysroot lives in the real cache: point at it through a symlink.
  std::filesystem::create_directories(empty.path() / "cache");
  std::filesystem::create_symlink(test::toolchain().cacheDir / "sysroot",
                                  empty.path() / "cache/sysroot");
  auto r = runProcess(spec);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 3);
  CHECK(r.out.find("ptx ") != std::string::npos);
  CHECK(r.err.find("stage unavailable: sass") != std::string::npos);
}

TEST_CASE("doctor names every tool") {
  auto r = test::runKernelscope({"doctor"});
  for (const char* tool : {"rustc", "sysroot", "ptxas", "nvdisasm", "nvcc"})
    CHECK(r.out.find(tool) != std::string::npos);
}

TEST_CASE("inputs that are not regular files: exit 2 saying what they are, never a hang") {
  TempDir dir("kernelscope-cli-inputs");
  const std::string fifo = (dir.path() / "kernel.rs").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A plain loop variable: doctest's INFO captures it in a lambda, which clang 14 does not
  // allow for structured bindings.
  for (const auto& input :
       std::vector<std::pair<std::string, std::string>>{{"/dev/zero", "a character device"},
                                                        {"/dev/null", "a character device"},
                                                        {dir.path().string(), "a directory"},
                                                        {fifo, "a FIFO"},
                                                        {"no/such/kernel.rs", "no such file"}}) {
    const std::string& path = input.first;
    const std::string& what = input.second;
    auto r = test::runKernelscope({"explain", path});
    INFO(path << ": " << r.err);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(r.elapsed < std::chrono::seconds(20));
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", fifo, "examples/saxpy.rs"},
        std::vector<std::string>{"passes", fifo, "--kernel", "k"},
        std::vector<std::string>{"compare", fifo, "examples/saxpy.rs"}}) {
    auto r = test::runKernelscope(args);
    INFO(args[0] << ": " << r.err);
    CHECK(r.exitCode == 2);
    CHECK(r.err.find("is a FIFO") != std::string::npos);
  }
}

TEST_CASE(
    "a crate whose [lib] path is a FIFO or /dev/zero: said at once, never rustc's time limit") {
  test::requireToolchain();
  TempDir dir("kernelscope-cli-fifo-lib");
  const auto crate = dir.path() / "k";
  std::filesystem::create_directories(crate / "src");
  std::ofstream(crate / "Cargo.toml")
      << "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
         "[lib]\npath = \"src/root.rs\"\n";
  std::filesystem::copy_file(test::sourceDir() / "examples/saxpy.rs", crate / "src/kernel.rs");
  for (const std::string kind : {"FIFO", "character device"}) {
    std::filesystem::remove(crate / "src/root.rs");
    if (kind == "FIFO")
      REQUIRE(::mkfifo((crate / "src/root.rs").c_str(), 0600) == 0);
    else
      std::filesystem::create_symlink("/dev/zero", crate / "src/root.rs");
    auto r =
        test::runKernelscope({"explain", (crate / "src/kernel.rs").string(), "--stages", "ptx"});
    INFO(kind << ": " << r.err);
    CHECK(r.elapsed < std::chrono::seconds(30));
    CHECK(r.err.find("the library root " + (crate / "src/root.rs").string()) != std::string::npos);
    CHECK(r.err.find("is a " + kind + ", not a regular file") != std::string::npos);
  }
}

TEST_CASE("a file name that is not UTF-8: exit 2 saying so, also with --json") {
  TempDir dir("kernelscope-cli-names");
  const std::filesystem::path odd = dir.path() / "k\xff\xfe.rs";
  std::filesystem::copy_file(test::sourceDir() / "examples/saxpy.rs", odd);
  auto r = test::runKernelscope({"explain", odd.string(), "--json"});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("not valid UTF-8") != std::string::npos);
}

TEST_CASE("--save-temps: an empty path or one that cannot be made is an error") {
  auto empty = test::runKernelscope({"explain", "examples/saxpy.rs", "--save-temps", ""});
  CHECK(empty.exitCode == 2);
  CHECK(empty.err.find("--save-temps needs a directory") != std::string::npos);
  auto underFile = test::runKernelscope(
      {"explain", "examples/saxpy.rs", "--save-temps", "examples/saxpy.rs/temps"});
  CHECK(underFile.exitCode == 2);
  CHECK(underFile.err.find("--save-temps: cannot create the directory examples/saxpy.rs/temps") !=
        std::string::npos);
}

TEST_CASE("a TMPDIR that does not exist: a clear error and exit 1, no abort") {
  test::requireToolchain();
  auto r = test::runKernelscope({"explain", "examples/saxpy.rs", "--stages", "ptx"},
                                {{"TMPDIR", "/nonexistent/kernelscope-tmp"}});
  INFO(r.err);
  CHECK(r.exitCode == 1);
  CHECK(r.err.find("cannot make a temporary directory in /nonexistent/kernelscope-tmp (TMPDIR)") !=
        std::string::npos);
}

TEST_CASE("--remarks none: rustc is not asked for remarks; the default asks") {
  test::requireToolchain();
  TempDir temps("kernelscope-remarks");
  auto hasRemarks = [](const std::filesystem::path& dir) {
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().filename().string().starts_with("remarks.")) return true;
    return false;
  };
  auto none = test::runKernelscope({"explain", "examples/saxpy.rs", "--stages", "ptx", "--remarks",
                                    "none", "--save-temps", (temps.path() / "none").string()});
  REQUIRE(none.exitCode == 0);
  CHECK_FALSE(hasRemarks(temps.path() / "none"));
  auto all = test::runKernelscope({"explain", "examples/saxpy.rs", "--stages", "ptx", "--remarks",
                                   "all", "--save-temps", (temps.path() / "all").string()});
  REQUIRE(all.exitCode == 0);
  CHECK(hasRemarks(temps.path() / "all"));
}

TEST_CASE("HOME unset: a private per-user cache, never a shared /tmp one") {
  auto r = test::runKernelscope(
      {"doctor"}, {{"HOME", ""}, {"XDG_CACHE_HOME", ""}, {"KERNELSCOPE_CACHE_DIR", ""}});
  INFO(r.out << r.err);
  CHECK(r.out.find("cache: /tmp/kernelscope-cache,") == std::string::npos);
  auto start = r.out.find("(cache: ");
  REQUIRE(start != std::string::npos);
  std::string dir = r.out.substr(start + 8, r.out.find(',', start) - start - 8);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) CHECK(st.st_uid == ::getuid());
  if (dir.starts_with("/tmp/")) CHECK((st.st_mode & 077) == 0);
}

TEST_CASE("a relative KERNELSCOPE_CACHE_DIR or XDG_CACHE_HOME is ignored, and doctor says so") {
  for (const char* variable : {"KERNELSCOPE_CACHE_DIR", "XDG_CACHE_HOME"}) {
    INFO(variable);
    auto doctor = test::runKernelscope({"doctor"}, {{variable, "relative-cache"}});
    INFO(doctor.out << doctor.err);
    CHECK(doctor.out.find(std::string("note: ") + variable +
                          "=relative-cache is not an absolute path and is ignored") !=
          std::string::npos);
    const auto start = doctor.out.find("(cache: ");
    REQUIRE(start != std::string::npos);
    CHECK(doctor.out.substr(start + 8, 1) == "/");
    // A value with a terminal escape is shown, not obeyed.
    auto escaped = test::runKernelscope({"doctor"}, {{variable, "x\x1b]0;owned\x07"}});
    CHECK(escaped.out.find(std::string(variable) + "=x?]0;owned? is not an absolute path") !=
          std::string::npos);
    CHECK(escaped.out.find('\x1b') == std::string::npos);
    test::requireToolchain();
    auto r = test::runKernelscope({"explain", "examples/saxpy.rs", "--stages", "ptx"},
                                  {{variable, "relative-cache"}});
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.out.find("kernels (sm_") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(test::sourceDir() / "relative-cache"));
  }
}

TEST_CASE("lsp --port refuses to start without a token") {
  auto r = test::runKernelscope({"lsp", "--port", "39127"}, {{"KERNELSCOPE_LSP_TOKEN", ""}});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("--port needs a token") != std::string::npos);
  auto shortToken =
      test::runKernelscope({"lsp", "--port", "39127"}, {{"KERNELSCOPE_LSP_TOKEN", "short"}});
  CHECK(shortToken.exitCode == 2);
  CHECK(shortToken.err.find("at least 16 characters") != std::string::npos);
}

TEST_CASE("explain --json names a kernel's resources and occupancy as kernelscope/kernels does") {
  test::requireToolchain();
  auto r = test::runKernelscope({"explain", "examples/saxpy.rs", "--json", "--stages", "ptx,sass"});
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["kernels"].size() == 1);
  const auto& k = j["kernels"][0];
  for (const char* field : {"name", "demangled", "instructions", "registers", "spillStores",
                            "spillLoads", "stackFrame", "sharedMemory", "localMemory"})
    CHECK_MESSAGE(k.contains(field), field);
  for (const char* o : {"occupancy", "bestOccupancy"})
    for (const char* field :
         {"blockSize", "activeWarpsPerSM", "maxWarpsPerSM", "percent", "limiter"})
      CHECK_MESSAGE(k[o].contains(field), o << "." << field);
  CHECK(k["occupancy"]["percent"].is_number_integer());
}

namespace {

/// A kernelscope cache of its own (the real one's sysroot and CUDA tools linked in), with the
/// result cache on, for runs of `explain --verbose` on a copy of saxpy.rs.
struct ResultCacheRun {
  TempDir dir{"kernelscope-result-cache"};
  std::filesystem::path cache = dir.path() / "cache", kernel = dir.path() / "saxpy.rs";

  ResultCacheRun() {
    std::filesystem::create_directories(cache);
    for (const char* shared : {"sysroot", "cuda-tools"})
      if (std::filesystem::exists(test::toolchain().cacheDir / shared))
        std::filesystem::create_symlink(test::toolchain().cacheDir / shared, cache / shared);
    std::ofstream(kernel) << readWholeFile(test::sourceDir() / "examples/saxpy.rs");
  }
  ProcessResult explain(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"explain", kernel.string(), "--verbose", "--stages",
                                     "ptx,sass"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::runKernelscope(
        args, {{"KERNELSCOPE_CACHE_DIR", cache.string()}, {"KERNELSCOPE_RESULT_CACHE_MB", "64"}});
  }
};

bool says(const ProcessResult& r, std::string_view what) {
  return r.err.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("explain of an unchanged kernel is answered from the result cache, exactly") {
  test::requireToolchain();
  ResultCacheRun run;
  // Text and JSON, each under options of its own (the output's form is no compile option).
  for (const auto& flags : {std::vector<std::string>{"--json"},
                            std::vector<std::string>{"--arch", "sm_80", "--opt", "2"}}) {
    auto first = run.explain(flags);
    INFO(first.err);
    REQUIRE(first.exitCode == 0);
    CHECK(says(first, "kernelscope: 1 compiled, 0 from the result cache"));
    auto second = run.explain(flags);
    CHECK(second.exitCode == 0);
    CHECK(says(second, "kernelscope: 0 compiled, 1 from the result cache"));
    CHECK(second.out == first.out);  // the same lines, locations, resources and occupancy
  }
  // Other options are another result.
  CHECK(says(run.explain({"--arch", "sm_75"}), "1 compiled, 0 from"));
  // An edit compiles again.
  std::ofstream(run.kernel, std::ios::app) << "\n// edited\n";
  CHECK(says(run.explain(), "1 compiled, 0 from"));
  CHECK(says(run.explain(), "0 compiled, 1 from"));

  // A damaged entry is not trusted: compiled again, and the answer is right.
  const auto good = run.explain({"--json"});
  for (const auto& e : std::filesystem::directory_iterator(run.cache / "results"))
    if (std::filesystem::exists(e.path() / "result"))
      std::ofstream(e.path() / "result") << "damaged";
  auto damaged = run.explain({"--json"});
  CHECK(says(damaged, "1 compiled, 0 from"));
  CHECK(damaged.out == good.out);
}

TEST_CASE("a file-size limit: the result is shown, its save fails softly, nothing is left") {
  test::requireToolchain();
  if (!std::filesystem::exists("/usr/bin/prlimit")) return;
  ResultCacheRun run;
  const auto unlimited = run.explain();
  REQUIRE(unlimited.exitCode == 0);
  std::filesystem::remove_all(run.cache / "results");
  // Room for the tools' files (a few KB each), not for the whole result (15 KB).
  ProcessSpec spec;
  spec.argv = {"/usr/bin/prlimit",  "--fsize=11264", "--",       KS_BINARY, "explain",
               run.kernel.string(), "--verbose",     "--stages", "ptx,sass"};
  spec.env = {{"KERNELSCOPE_CACHE_DIR", run.cache.string()}, {"KERNELSCOPE_RESULT_CACHE_MB", "64"}};
  spec.timeout = std::chrono::seconds(120);
  const ProcessResult r = runProcess(spec);
  INFO(r.err);
  CHECK(r.exitCode == 0);  // not killed by SIGXFSZ
  CHECK(r.out == unlimited.out);
  CHECK(says(r, "compile results are not kept between runs: cannot write " +
                    (run.cache / "results").string() + " (File too large)"));
  for (const auto& e : std::filesystem::directory_iterator(run.cache / "results"))
    FAIL("left behind: " << e.path());
}

TEST_CASE("a result cache that cannot be written: said once, and explain still works") {
  test::requireToolchain();
  ResultCacheRun run;
  std::ofstream(run.cache / "results") << "a file where the cache's folder would be";
  for (int i = 0; i < 2; ++i) {
    auto r = run.explain();
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.out.find("kernels (sm_90") != std::string::npos);
    CHECK(says(r, "compile results are not kept between runs: cannot write " +
                      (run.cache / "results").string()));
    CHECK(says(r, "1 compiled, 0 from"));
  }
}

TEST_CASE(
    "explain --json --stream: MIR, LLVM IR and PTX before ptxas runs, then the --json result") {
  test::requireToolchain();
  const Toolchain& tc = test::toolchain();
  if (!tc.ptxas.found() || !tc.nvdisasm.found()) {
    MESSAGE("skipped: needs ptxas and nvdisasm");
    return;
  }
  namespace fs = std::filesystem;
  ResultCacheRun run;
  const fs::path stream = run.dir.path() / "stream.ndjson", cuda = run.dir.path() / "cuda";
  // A ptxas that assembles only once the first group of stages is written: the compile has
  // resources and SASS only if the stream said MIR, LLVM IR and PTX before ptxas ran.
  fs::create_directories(cuda / "bin");
  std::ofstream(cuda / "bin/ptxas")
      << "#!/bin/sh\ncase \"$*\" in *--version*) ;; *) grep -q '\"pending\"' '" << stream.string()
      << "' || { echo 'ptxas ran before the first stages were written' >&2; exit 9; } ;; esac\n"
      << "exec '" << tc.ptxas.path.string() << "' \"$@\"\n";
  fs::permissions(cuda / "bin/ptxas", fs::perms::owner_all);
  fs::create_symlink(tc.nvdisasm.path, cuda / "bin/nvdisasm");
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KERNELSCOPE_CACHE_DIR", run.cache.string()},
      {"KERNELSCOPE_RESULT_CACHE_MB", "0"},
      {"CUDA_HOME", cuda.string()},
      {"STREAM", stream.string()}};
  // The stream goes to a file that ptxas can read while kernelscope runs.
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",      "exec \"$0\" \"$@\" > \"$STREAM\"",
               KS_BINARY, "explain", run.kernel.string(),
               "--json",  "--stream"};
  spec.env = env;
  spec.timeout = std::chrono::seconds(120);
  const ProcessResult streamed = runProcess(spec);
  INFO(streamed.err);
  REQUIRE(streamed.exitCode == 0);
  std::vector<nlohmann::json> events;
  const std::string lines = readWholeFile(stream);
  for (std::string_view line : splitLines(lines))
    if (!line.empty()) events.push_back(nlohmann::json::parse(line));
  REQUIRE(events.size() == 3);

  // First: MIR, LLVM IR and PTX with their lines, before ptxas (no resources yet).
  const nlohmann::json& first = events[0];
  CHECK(first["pending"] == nlohmann::json({"resources", "sass"}));
  for (const char* s : {"mir", "llvm-ir", "ptx"}) CHECK(first["stages"][s]["available"] == true);
  CHECK(first["stages"]["sass"] == nlohmann::json({{"available", false}, {"pending", true}}));
  REQUIRE(first["kernels"].size() == 1);
  CHECK_FALSE(first["kernels"][0].contains("registers"));
  bool ptxOnLines = false;
  for (const auto& line : first["lines"]) ptxOnLines |= line["stages"].contains("ptx");
  CHECK(ptxOnLines);
  // Then the resources (ptxas), SASS still coming.
  CHECK(events[1]["pending"] == nlohmann::json({"sass"}));
  CHECK(events[1]["kernels"][0]["registers"].get<int>() > 0);
  CHECK(events[1]["stages"]["sass"]["pending"] == true);
  // Last: exactly what explain --json prints.
  CHECK_FALSE(events[2].contains("pending"));
  CHECK(events[2]["stages"]["sass"]["available"] == true);
  const ProcessResult whole = test::runKernelscope({"explain", run.kernel.string(), "--json"}, env);
  REQUIRE(whole.exitCode == 0);
  CHECK(events[2] == nlohmann::json::parse(whole.out));

  // As text: a line on stderr as each group is ready, then the view.
  const ProcessResult text =
      test::runKernelscope({"explain", run.kernel.string(), "--stream"}, env);
  REQUIRE(text.exitCode == 0);
  const size_t ready = text.err.find("kernelscope: mir, llvm-ir, ptx ready after ");
  CHECK(ready != std::string::npos);
  CHECK(text.err.find("still coming: resources, sass", ready) != std::string::npos);
  CHECK(text.out.find("kernels (sm_90") != std::string::npos);
}

TEST_CASE("passes, run and profile answer an unchanged kernel from the result cache, rustc unrun") {
  test::requireToolchain();
  namespace fs = std::filesystem;
  ResultCacheRun run;
  // A rustc that counts the compiles it is asked for (not discovery's --version).
  const fs::path rustc = run.dir.path() / "rustc", compiles = run.dir.path() / "rustc-compiles";
  std::ofstream(rustc) << "#!/bin/sh\ncase \"$*\" in *--emit*) echo >> '" << compiles.string()
                       << "';; esac\nexec '" << test::toolchain().rustc.path.string()
                       << "' \"$@\"\n";
  fs::permissions(rustc, fs::perms::owner_all);
  // Its nvptx64 core is the real rustc's (a core's folder is named after its rustc).
  Toolchain wrapped = test::toolchain();
  wrapped.rustc.path = rustc;
  wrapped.cacheDir = run.cache;
  fs::remove(run.cache / "sysroot");  // the link to the shared cache's folder
  fs::create_directories(run.cache / "sysroot");
  fs::create_directory_symlink(test::toolchain().sysroot.path, wrapped.sysrootCacheDir());
  auto rustcCompiles = [&] {
    const std::string log = readWholeFile(compiles);
    return splitLines(log).size();
  };
  auto kernelscope = [&](std::vector<std::string> args, std::string_view answered) {
    args.insert(args.begin() + 1, run.kernel.string());
    args.push_back("--verbose");
    ProcessResult r = test::runKernelscope(args, {{"KERNELSCOPE_CACHE_DIR", run.cache.string()},
                                                  {"KERNELSCOPE_RESULT_CACHE_MB", "64"},
                                                  {"KERNELSCOPE_RUSTC", rustc.string()}});
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(says(r, answered));
    return r.out;
  };
  const std::string passes = kernelscope({"passes", "--kernel", "saxpy"}, "1 compiled, 0 from");
  CHECK(rustcCompiles() == 1);
  CHECK(kernelscope({"passes", "--kernel", "saxpy"}, "0 compiled, 1 from") == passes);
  CHECK(rustcCompiles() == 1);

  // run and profile: the request they would send to gpu-exec (the cubin and the plan).
  const fs::path first = run.dir.path() / "first.request", again = run.dir.path() / "again.request";
  kernelscope({"run", "--save-request", first.string()}, "1 compiled, 0 from");
  CHECK(rustcCompiles() == 2);
  kernelscope({"run", "--save-request", again.string()}, "0 compiled, 1 from");
  kernelscope({"profile", "--save-request", again.string()}, "0 compiled, 1 from");
  CHECK(rustcCompiles() == 2);
  kernelscope({"run", "--save-request", again.string()}, "0 compiled, 1 from");
  CHECK(readWholeFile(again) == readWholeFile(first));  // the same cubin, byte for byte

  // An edit compiles again.
  std::ofstream(run.kernel, std::ios::app) << "\n// edited\n";
  kernelscope({"passes", "--kernel", "saxpy"}, "1 compiled, 0 from");
  kernelscope({"run", "--save-request", again.string()}, "1 compiled, 0 from");
  CHECK(rustcCompiles() == 4);
}

TEST_CASE("a cargo configuration file created above a crate later compiles it again") {
  test::requireToolchain();
  namespace fs = std::filesystem;
  ResultCacheRun run;
  auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((run.dir.path() / rel).parent_path());
    std::ofstream(run.dir.path() / rel) << text;
  };
  write("k/Cargo.toml",
        "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
        "[lib]\ncrate-type = [\"cdylib\"]\n[lints.rust]\nunexpected_cfgs = \"allow\"\n");
  std::string lib = "#![no_std]\n#![feature(abi_ptx)]\n";
  for (const std::string name : {"always", "from_parent"})
    lib += (name == "always" ? std::string() : "#[cfg(" + name + ")]\n") +
           "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn " + name +
           "(p: *mut f32) {\n    *p = 1.0;\n}\n";
  write("k/src/lib.rs",
        lib + "#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n");
  auto explain = [&](std::string_view answered) {
    ProcessResult r = test::runKernelscope(
        {"explain", (run.dir.path() / "k/src/lib.rs").string(), "--json", "--stages", "ptx",
         "--verbose"},
        {{"KERNELSCOPE_CACHE_DIR", run.cache.string()}, {"KERNELSCOPE_RESULT_CACHE_MB", "64"}});
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(says(r, answered));
    std::set<std::string> kernels;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& k : j["kernels"]) kernels.insert(k["name"].get<std::string>());
    return kernels;
  };
  CHECK(explain("1 compiled, 0 from") == std::set<std::string>{"always"});
  CHECK(explain("0 compiled, 1 from") == std::set<std::string>{"always"});
  // cargo reads .cargo/config.toml in every folder above the package: one made now counts.
  write(".cargo/config.toml", "[build]\nrustflags = [\"--cfg\", \"from_parent\"]\n");
  CHECK(explain("1 compiled, 0 from") == std::set<std::string>{"always", "from_parent"});
  CHECK(explain("0 compiled, 1 from") == std::set<std::string>{"always", "from_parent"});
}

TEST_CASE("--extern names a crate for a single file; a bad one is a usage error") {
  auto bad = test::runKernelscope({"explain", "examples/saxpy.rs", "--extern", "../x=examples"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("'../x' is not a crate name") != std::string::npos);
  test::requireToolchain();
  TempDir dir("kernelscope-cli-extern");
  const std::filesystem::path file = dir.path() / "indexed.rs";
  std::ofstream(file)
      << "#![no_std]\n#![feature(abi_ptx)]\n"
         "#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! { loop {} }\n"
         "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn indexed(x: *mut u32) {\n"
         "    *x.add(util::global_index()) = 1;\n}\n";
  auto r = test::runKernelscope({"explain", file.string(), "--stages", "ptx", "--extern",
                                 "util=" + (test::sourceDir() / "examples/crate-util").string()});
  INFO(r.err);
  CHECK(r.exitCode == 0);
  CHECK(r.out.find("indexed") != std::string::npos);
}
