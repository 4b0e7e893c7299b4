// Toolchain profiles: names, tool discovery and its report, the exact commands for
// rust-cuda and cuda-oxide, cargo's messages, PTX as these toolchains get it (stand-ins from
// libNVVM and LLVM's NVPTX back end, recorded by tests/golden/profiles/record.sh: see the
// README.md there) and the compile driver around a cargo that stands in for the real one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include "Compile.h"
#include "KernelScan.h"
#include "Parsers.h"
#include "Profile.h"
#include "TestSupport.h"
#include "TextUtil.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

fs::path goldenDir() { return test::sourceDir() / "tests/golden/profiles"; }

EnvLookup envOf(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::string() : it->second;
  };
}

void writeFile(const fs::path& p, const std::string& text, bool executable = false) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  if (executable) fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);
}

/// A rustup-like nightly with cargo, rustc and rust-src; `cargo` is the given script.
fs::path fakeNightly(const fs::path& dir, const std::string& cargoScript = "#!/bin/sh\nexit 0\n") {
  writeFile(dir / "bin/cargo", cargoScript, true);
  writeFile(dir / "bin/rustc", "#!/bin/sh\nexit 0\n", true);
  fs::create_directories(dir / "lib/rustlib/src/rust/library/core");
  return dir;
}

/// Sets environment variables for one test and restores them after.
struct ScopedEnv {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it)
      if (it->second)
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        ::unsetenv(it->first.c_str());
  }
};

/// A cargo that records its arguments and rustflags in `log`, then runs `then`.
std::string recordingCargo(const fs::path& log, const std::string& then) {
  return "#!/bin/sh\n"
         "printf '%s\\n' \"$@\" > '" +
         log.string() +
         "'\n"
         "printf '%s\\n' \"$CARGO_ENCODED_RUSTFLAGS\" \"CUDA_OXIDE_TARGET=$CUDA_OXIDE_TARGET\" >> "
         "'" +
         log.string() + "'\n" + then;
}

ProfileBuild sampleBuild() {
  ProfileBuild b;
  b.cargo = "/tc/bin/cargo";
  b.rustc = "/tc/bin/rustc";
  b.backend = "/be/librustc_codegen_nvvm.so";
  b.manifest = "/k/Cargo.toml";
  b.targetDir = "/cache/t";
  b.outDir = "/tmp/out";
  b.crateName = "kernels";
  b.arch = "sm_80";
  b.optLevel = 3;
  b.rustcArgs = {"--remap-path-prefix=/tmp/s=/k"};
  b.cudaRoot = "/usr/local/cuda";
  b.llc = "/usr/bin/llc-22";
  return b;
}

/// The 1-based line of `text` where `needle` first occurs.
uint32_t lineOf(const std::string& text, std::string_view needle) {
  size_t pos = text.find(needle);
  REQUIRE_MESSAGE(pos != std::string::npos, needle);
  if (needle.starts_with("\n")) ++pos;
  return static_cast<uint32_t>(std::count(text.begin(), text.begin() + pos, '\n') + 1);
}

/// The 0-based index of the first line of `a` whose trimmed text starts with `start`.
size_t lineWith(const Artifact& a, std::string_view start) {
  for (size_t i = 0; i < a.lines().size(); ++i)
    if (text::trim(a.lineText(i)).starts_with(start)) return i;
  FAIL("no line starts with " << start);
  return 0;
}

/// The (single-frame) source location of the first line starting with `start`.
Frame locOf(const Artifact& a, std::string_view start) {
  const auto& loc = a.lines()[lineWith(a, start)].location;
  INFO(start);
  REQUIRE(loc.size() == 1);
  return loc[0];
}

/// The trimmed `.param` lines of `f`'s header.
std::vector<std::string> params(const Artifact& a, const ArtifactFunction& f) {
  std::vector<std::string> out;
  for (uint32_t l = f.firstLine; l <= f.lastLine && a.lines()[l].kind == LineKind::Header; ++l)
    if (auto t = text::trim(a.lineText(l)); t.starts_with(".param")) out.emplace_back(t);
  return out;
}

const ArtifactFunction& function(const Artifact& a, std::string_view symbol) {
  for (const auto& f : a.functions)
    if (f.symbol == symbol) return f;
  FAIL("no function " << symbol);
  return a.functions.front();
}

}  // namespace

TEST_CASE("profile names") {
  for (auto p :
       {ToolchainProfile::RustcNvptx, ToolchainProfile::RustCuda, ToolchainProfile::CudaOxide})
    CHECK(profileFromName(profileName(p)) == p);
  CHECK(profileName(ToolchainProfile::RustCuda) == "rust-cuda");
  CHECK_FALSE(profileFromName("rust_cuda"));
  CHECK_FALSE(profileFromName(""));
}

TEST_CASE(
    "rust-cuda command: cuda_builder's rustflags, cargo -Zbuild-std, MIR for the kernel crate") {
  ProfileBuild b = sampleBuild();
  ProfileCommand c = rustCudaCommand(b);
  CHECK(c.argv == std::vector<std::string>{
                      "/tc/bin/cargo", "rustc", "--lib", "--manifest-path", "/k/Cargo.toml",
                      "--message-format=json-render-diagnostics", "--target-dir", "/cache/t",
                      "-Zbuild-std=core,alloc", "--target=nvptx64-nvidia-cuda", "--release",
                      "-Zbuild-std-features=panic_immediate_abort", "--",
                      "--emit=mir,link,dep-info", "-Zmir-include-spans=on",
                      "--remap-path-prefix=/tmp/s=/k"});
  CHECK(c.cwd == "/k");
  using Env = std::vector<std::pair<std::string, std::string>>;
  CHECK(c.env ==
        Env{{"RUSTC", "/tc/bin/rustc"},
            {"CARGO_ENCODED_RUSTFLAGS",
             "-Zcodegen-backend=/be/librustc_codegen_nvvm.so\x1f"
             "-Zcrate-attr=feature(register_tool)\x1f-Zcrate-attr=register_tool(nvvm_internal)\x1f"
             "-Zcrate-attr=no_std\x1f-Zsaturating_float_casts=false\x1f-Cdebuginfo=1\x1f"
             "-Cllvm-args=-arch=compute_80 --override-libm --final-module-path "
             "/tmp/out/final-module.ll -generate-line-info"},
            {"CUDA_PATH", "/usr/local/cuda"},
            {"LD_LIBRARY_PATH", "/be:/usr/local/cuda/nvvm/lib64"}});

  // A debug build: no --release, and libNVVM's optimizer off (cuda_builder's release(false)).
  b.optLevel = 0;
  b.arch = "sm_120";
  c = rustCudaCommand(b);
  CHECK(std::find(c.argv.begin(), c.argv.end(), "--release") == c.argv.end());
  CHECK(c.env[1].second.find("-Cllvm-args=-arch=compute_120 -opt=0 --override-libm") !=
        std::string::npos);
}

TEST_CASE("cuda-oxide command: the backend, its four required flags and its environment") {
  ProfileBuild b = sampleBuild();
  b.backend = "/be/librustc_codegen_cuda.so";
  b.cargoTarget = {"--bins"};
  b.optLevel = 1;  // the backend needs opt-level 3 for device code; the flag does not follow
  ProfileCommand c = cudaOxideCommand(b);
  CHECK(c.argv == std::vector<std::string>{
                      "/tc/bin/cargo", "rustc", "--bins", "--manifest-path", "/k/Cargo.toml",
                      "--message-format=json-render-diagnostics", "--target-dir", "/cache/t",
                      "--release", "--", "--emit=mir,link,dep-info", "-Zmir-include-spans=on",
                      "--remap-path-prefix=/tmp/s=/k"});
  using Env = std::vector<std::pair<std::string, std::string>>;
  CHECK(c.env == Env{{"RUSTC", "/tc/bin/rustc"},
                     {"CARGO_ENCODED_RUSTFLAGS",
                      "-Zcodegen-backend=/be/"
                      "librustc_codegen_cuda.so\x1f-Copt-level=3\x1f-Cdebug-assertions=off\x1f"
                      "-Zmir-enable-passes=-JumpThreading\x1f-Zalways-encode-mir"},
                     {"CUDA_OXIDE_PTX_DIR", "/tmp/out"},
                     {"CUDA_OXIDE_TARGET", "sm_80"},
                     {"CUDA_OXIDE_LLC", "/usr/bin/llc-22"},
                     {"CUDA_OXIDE_DEBUG", "line-tables"},
                     {"CUDA_OXIDE_DEVICE_CODEGEN_CRATE", "kernels"}});
}

TEST_CASE("missing profile tools: each one named, with where it was looked for and the fix") {
  auto env = envOf({{"HOME", "/nonexistent-home"}, {"CUDA_HOME", "/nonexistent-cuda"}});
  ProfileTools rc = discoverProfileTools(ToolchainProfile::RustCuda, env);
  CHECK_FALSE(rc.ready());
  for (const char* name : {"nightly", "backend", "libnvvm", "libdevice"}) {
    const ToolInfo* t = rc.find(name);
    REQUIRE_MESSAGE(t, name);
    CHECK_FALSE(t->found());
    CHECK_FALSE(t->fix.empty());
  }
  std::string report = rc.missingReport();
  CHECK(report.find("rust-cuda profile cannot compile") != std::string::npos);
  CHECK(report.find("librustc_codegen_nvvm.so not found") != std::string::npos);
  CHECK(report.find("/nonexistent-cuda") != std::string::npos);
  CHECK(report.find("rustup toolchain install nightly-") != std::string::npos);
  CHECK(profileDoctorReport(rc).find("MISSING") != std::string::npos);

  ProfileTools co = discoverProfileTools(ToolchainProfile::CudaOxide, env);
  CHECK_FALSE(co.ready());
  CHECK(co.missingReport().find("librustc_codegen_cuda.so not found") != std::string::npos);
  CHECK(discoverProfileTools(ToolchainProfile::RustcNvptx, env).tools.empty());
}

TEST_CASE("profile tools are found where cuda_builder and cuda-oxide look for them") {
  TempDir dir("kernelscope-profile-tools");
  fs::path nightly =
      fakeNightly(dir.path() / "toolchains/nightly-2025-03-02-x86_64-unknown-linux-gnu");
  writeFile(dir.path() / "cg/librustc_codegen_nvvm.so", "");
  writeFile(dir.path() / "cuda/nvvm/lib64/libnvvm.so", "");
  writeFile(dir.path() / "cuda/nvvm/libdevice/libdevice.10.bc", "");
  ProfileTools rc = discoverProfileTools(
      ToolchainProfile::RustCuda,
      envOf({{"RUSTUP_HOME", dir.path().string()},
             {"LD_LIBRARY_PATH", "/nonexistent:" + (dir.path() / "cg").string()},
             {"CUDA_PATH", (dir.path() / "cuda").string()}}));
  INFO(rc.missingReport());
  CHECK(rc.ready());
  CHECK(rc.find("nightly")->path == nightly / "bin/rustc");
  CHECK(rc.find("backend")->path == dir.path() / "cg/librustc_codegen_nvvm.so");
  CHECK(rc.cudaRoot == dir.path() / "cuda");

  // A toolchain without rust-src cannot -Zbuild-std: said so.
  fs::remove_all(nightly / "lib/rustlib/src");
  rc = discoverProfileTools(ToolchainProfile::RustCuda,
                            envOf({{"RUSTUP_HOME", dir.path().string()}}));
  CHECK(rc.find("nightly")->problem.find("lacks rust-src") != std::string::npos);

  // cuda-oxide: its backend under CUDA_OXIDE_ROOT, an llc that is LLVM 21+ with NVPTX.
  writeFile(dir.path() / "oxide/crates/rustc-codegen-cuda/target/release/librustc_codegen_cuda.so",
            "");
  writeFile(dir.path() / "llc22",
            "#!/bin/sh\necho 'LLVM version 22.1.8'\necho '    nvptx64    - NVIDIA PTX 64-bit'\n",
            true);
  writeFile(dir.path() / "llc14",
            "#!/bin/sh\necho 'LLVM version 14.0.6'\necho '    nvptx64    - NVIDIA PTX 64-bit'\n",
            true);
  fakeNightly(dir.path() / "toolchains/nightly-2026-04-03-x86_64-unknown-linux-gnu");
  auto oxideEnv = [&](const std::string& llc) {
    return envOf({{"RUSTUP_HOME", dir.path().string()},
                  {"CUDA_OXIDE_ROOT", (dir.path() / "oxide").string()},
                  {"CUDA_OXIDE_LLC", (dir.path() / llc).string()}});
  };
  ProfileTools co = discoverProfileTools(ToolchainProfile::CudaOxide, oxideEnv("llc22"));
  INFO(co.missingReport());
  CHECK(co.ready());
  CHECK(co.find("nightly")->version.starts_with("nightly-2026-04-03"));  // the pinned one first
  CHECK(co.find("llc")->path == dir.path() / "llc22");
  CHECK(co.find("llc")->version == "LLVM 22");
  co = discoverProfileTools(ToolchainProfile::CudaOxide, oxideEnv("llc14"));
  CHECK(co.find("llc")->path != dir.path() / "llc14");  // too old: another llc, or missing
}

TEST_CASE("cargo's JSON messages: the PTX artifact and rustc's diagnostics") {
  std::string lines =
      R"({"reason":"compiler-artifact","package_id":"path+file:///k#kernels@0.1.0","target":{"kind":["cdylib","rlib"],"name":"kernels"},"filenames":["/t/nvptx64-nvidia-cuda/release/kernels.ptx","/t/nvptx64-nvidia-cuda/release/libkernels.rlib"],"fresh":false})"
      "\n"
      R"({"reason":"compiler-message","package_id":"path+file:///k#kernels@0.1.0","message":{"$message_type":"diagnostic","message":"cannot find value `x` in this scope","code":{"code":"E0425","explanation":null},"level":"error","spans":[{"file_name":"/k/src/lib.rs","byte_start":10,"byte_end":11,"line_start":7,"line_end":7,"column_start":5,"column_end":6,"is_primary":true,"text":[],"label":null,"suggested_replacement":null,"suggestion_applicability":null,"expansion":null}],"children":[],"rendered":"error[E0425]"}})"
      "\n"
      "   Compiling kernels v0.1.0\n"
      R"({"reason":"build-finished","success":false})"
      "\n";
  CHECK(ptxArtifacts(lines) == std::vector<fs::path>{"/t/nvptx64-nvidia-cuda/release/kernels.ptx"});
  auto diags = parseRustcDiagnostics(rustcMessagesFromCargo(lines));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "E0425");
  REQUIRE(diags[0].range);
  CHECK(diags[0].range->file == "/k/src/lib.rs");
  CHECK(diags[0].range->startLine == 7);
  CHECK(ptxArtifacts("not json\n{}\n").empty());
}

TEST_CASE(
    "rust-cuda profile, recorded libNVVM PTX (stand-in): NVVM header, the extern \"C\" entry, .loc "
    "lines") {
  // nvcc's libNVVM on rust-cuda/add.cu, a kernel with the ABI rust-cuda gives
  // `#[kernel] pub unsafe fn add(a: &[f32], b: &[f32], c: *mut f32)` (README.md there).
  const std::string cu = readWholeFile(goldenDir() / "rust-cuda/add.cu");
  Artifact ptx = parsePtx(readWholeFile(goldenDir() / "rust-cuda/add.ptx"));
  test::checkGolden(goldenDir() / "rust-cuda/add.ptx.expected", test::dumpArtifact(ptx));

  // libNVVM's header; .version/.target/.address_size are module directives.
  CHECK(ptx.lineText(1) == "// Generated by NVIDIA NVVM Compiler");
  CHECK(ptx.lineText(5).starts_with("// Based on NVVM "));
  CHECK(ptx.lines()[lineWith(ptx, ".version 9.0")].kind == LineKind::Directive);
  CHECK(ptx.lines()[lineWith(ptx, ".target sm_75")].kind == LineKind::Directive);
  CHECK(ptx.lines()[lineWith(ptx, ".address_size 64")].kind == LineKind::Directive);
  CHECK(ptx.lines()[lineWith(ptx, ".target sm_75")].function == -1);

  // One kernel, under its extern "C" name; each slice is two .u64 parameters, then `c`.
  REQUIRE(ptx.functions.size() == 1);
  const ArtifactFunction& add = ptx.functions[0];
  CHECK(add.symbol == "add");
  CHECK(add.demangled == "add");
  CHECK(add.isKernel);
  CHECK(params(ptx, add) ==
        std::vector<std::string>{".param .u64 add_param_0,", ".param .u64 add_param_1,",
                                 ".param .u64 add_param_2,", ".param .u64 add_param_3,",
                                 ".param .u64 add_param_4"});
  CHECK(ptx.instructionCount() > 20);

  // Every instruction maps, through `.loc 1 L C` and `.file 1 ".../add.cu"`, to its line of add.cu.
  const uint32_t kernelLine = lineOf(cu, "__global__ void add(");
  for (uint32_t l = add.firstLine; l <= add.lastLine; ++l)
    if (ptx.lines()[l].kind == LineKind::Instruction) {
      INFO(ptx.lineText(l));
      REQUIRE(ptx.lines()[l].location.size() == 1);
      CHECK(fs::path(ptx.lines()[l].location[0].file.str()).filename() == "add.cu");
    }
  CHECK(locOf(ptx, "ld.param.u64 \t%rd2, [add_param_0];").line == kernelLine);
  CHECK(locOf(ptx, "mov.u32 \t%r1, %ntid.x;").line == lineOf(cu, "size_t i ="));
  CHECK(locOf(ptx, "setp.ge.u64").line == lineOf(cu, "if (i < a_len)"));
  CHECK(locOf(ptx, "setp.lt.u64").line == lineOf(cu, "c[i] = a[i] + b[i]"));
  CHECK(locOf(ptx, "add.f32").line == lineOf(cu, "c[i] = a[i] + b[i]"));
  CHECK(locOf(ptx, "st.global.f32").line == lineOf(cu, "c[i] = a[i] + b[i]"));
  CHECK(locOf(ptx, "ret;").line == lineOf(cu, "\n}"));
  // The trap is inline asm: it keeps the preceding .loc.
  CHECK(locOf(ptx, "trap;").line == lineOf(cu, "c[i] = a[i] + b[i]"));

  // The kernel is found by name in its source: the C++ one, and the Rust twin whose lines
  // match add.cu's (what rust-cuda's PTX would be for it).
  auto cuEntries = scanKernelEntries(cu, true);
  REQUIRE(cuEntries.size() == 1);
  CHECK(cuEntries[0].name == "add");
  CHECK(cuEntries[0].line == kernelLine);
  auto entry = kernelEntryFor(readWholeFile(goldenDir() / "rust-cuda/add.rs"), add.symbol);
  REQUIRE(entry);
  CHECK(entry->line == kernelLine);
  CHECK_FALSE(kernelEntryFor(readWholeFile(goldenDir() / "rust-cuda/add.rs"), "add2"));
}

TEST_CASE(
    "cuda-oxide profile, recorded LLVM NVPTX PTX (stand-in): .ptr params, a kernel and device "
    "functions, .loc lines") {
  // rustc's LLVM IR of cuda-oxide/vecadd.rs through llc-22 for sm_80 (README.md there).
  const std::string rs = readWholeFile(goldenDir() / "cuda-oxide/vecadd.rs");
  Artifact ptx = parsePtx(readWholeFile(goldenDir() / "cuda-oxide/vecadd.sm_80.ptx"));
  test::checkGolden(goldenDir() / "cuda-oxide/vecadd.sm_80.ptx.expected", test::dumpArtifact(ptx));

  CHECK(ptx.lineText(1) == "// Generated by LLVM NVPTX Back-End");
  CHECK(ptx.lines()[lineWith(ptx, ".version 7.0")].kind == LineKind::Directive);
  CHECK(ptx.lines()[lineWith(ptx, ".target sm_80, debug")].kind == LineKind::Directive);

  // The kernel, the out-of-line index helper and the panic handler; only the kernel is an entry.
  REQUIRE(ptx.functions.size() == 3);
  const ArtifactFunction& vecadd = function(ptx, "vecadd");
  const ArtifactFunction& index = function(ptx, "index_1d");
  CHECK(vecadd.isKernel);
  CHECK_FALSE(index.isKernel);
  CHECK_FALSE(ptx.functions[0].isKernel);
  CHECK(ptx.functions[0].symbol.find("rust_begin_unwind") != std::string::npos);
  CHECK(ptx.instructionCount() > 20);

  // Pointer + length pairs; `.param .u64 .ptr .align 1 vecadd_param_0,` belongs to the header.
  CHECK(params(ptx, vecadd) ==
        std::vector<std::string>{
            ".param .u64 .ptr .align 1 vecadd_param_0,", ".param .u64 vecadd_param_1,",
            ".param .u64 .ptr .align 1 vecadd_param_2,", ".param .u64 vecadd_param_3,",
            ".param .u64 .ptr .align 1 vecadd_param_4,", ".param .u64 vecadd_param_5"});
  for (uint32_t l = vecadd.firstLine; l <= vecadd.lastLine; ++l)
    if (ptx.lineText(l).find(".ptr .align 1") != std::string_view::npos)
      CHECK(ptx.lines()[l].kind == LineKind::Header);

  // `.loc` lines (with LLVM's `// file:line:col` comments) map to vecadd.rs, and the
  // core::arch::nvptx intrinsics inlined into index_1d to their own file (`.file 2`).
  const uint32_t kernelLine = lineOf(rs, "fn vecadd(");
  CHECK(locOf(ptx, "ld.param.b64 \t%rd4, [vecadd_param_0];").line == kernelLine);
  CHECK(locOf(ptx, "call.uni (retval0), index_1d").line == lineOf(rs, "let i = index_1d();"));
  CHECK(locOf(ptx, "min.u64").line == lineOf(rs, "if i < a.len()"));
  const uint32_t sumLine = lineOf(rs, "c[i] = a[i] + b[i];");
  CHECK(locOf(ptx, "ld.global.b32 \t%r1").line == sumLine);  // a[i], column 16
  CHECK(locOf(ptx, "ld.global.b32 \t%r1").column == 16);
  CHECK(locOf(ptx, "ld.global.b32 \t%r2").line == sumLine);  // b[i], column 23
  CHECK(locOf(ptx, "ld.global.b32 \t%r2").column == 23);
  CHECK(fs::path(locOf(ptx, "add.rn.f32").file.str()).filename() == "vecadd.rs");
  CHECK(locOf(ptx, "add.rn.f32").line == sumLine);
  CHECK(locOf(ptx, "mad.lo.s32").line == lineOf(rs, "unsafe { (nvptx::_block_idx_x()"));
  CHECK(fs::path(locOf(ptx, "mov.u32 \t%r1, %ctaid.x;").file.str()).filename() == "mod.rs");
  CHECK(fs::path(locOf(ptx, "mov.u32 \t%r1, %ctaid.x;").file.str()).parent_path().filename() ==
        "nvptx");
  for (const ArtifactFunction* f : {&vecadd, &index})
    for (uint32_t l = f->firstLine; l <= f->lastLine; ++l)
      if (ptx.lines()[l].kind == LineKind::Instruction) {
        INFO(ptx.lineText(l));
        CHECK_FALSE(ptx.lines()[l].location.empty());
      }
  // LLVM's `.loc 1 0 8` (code of no particular line) is kept as line 0, as in rustc's PTX.
  CHECK(locOf(ptx, "shl.b64").line == 0);
  // The DWARF sections after the code are directives of no function, with no location.
  for (size_t l = lineWith(ptx, ".section\t.debug_abbrev"); l < ptx.lines().size(); ++l) {
    CHECK(ptx.lines()[l].function == -1);
    CHECK(ptx.lines()[l].kind == LineKind::Directive);
    CHECK(ptx.lines()[l].location.empty());
  }

  CHECK(kernelEntryFor(rs, "vecadd")->line == kernelLine);
  // The name the #[kernel] macro gives the function before the backend restores it.
  CHECK(kernelEntryFor(rs, "cuda_oxide_kernel_0123abcd_vecadd")->line == kernelLine);
  CHECK_FALSE(kernelEntryFor(rs, "vecadd2"));
  CHECK_FALSE(kernelEntryFor(rs, "index_1d"));  // a device function, not a kernel
}

// llc's verbose output puts a comment after a label (`$L__BB2_2:   // %bb4`); rustc's and
// nvcc's PTX have none.
TEST_CASE(
    "cuda-oxide profile, recorded LLVM NVPTX PTX: labels with llc's trailing comment are labels") {
  Artifact ptx = parsePtx(readWholeFile(goldenDir() / "cuda-oxide/vecadd.sm_80.ptx"));
  for (const char* label : {"$L__BB0_1:", "$L__BB2_2:", "$L__BB2_1:"}) {
    const size_t l = lineWith(ptx, label);
    INFO(ptx.lineText(l));
    CHECK(ptx.lineText(l).find("// %bb") != std::string_view::npos);
    CHECK(ptx.lines()[l].kind == LineKind::Label);
    CHECK(ptx.lines()[l].location.empty());
  }
}

TEST_CASE("a profile whose tools are missing fails every stage with the report, never crashes") {
  ScopedEnv env;
  env.set("KERNELSCOPE_RUST_CUDA_TOOLCHAIN", "/nonexistent-toolchain");
  env.set("KERNELSCOPE_RUST_CUDA_BACKEND", "/nonexistent/librustc_codegen_nvvm.so");
  CompileOptions opts;
  opts.workspaceTrusted = true;  // these profiles run cargo: only in a trusted workspace
  opts.profile = ToolchainProfile::RustCuda;
  Toolchain tc;  // rustc-nvptx's tools do not matter to this profile
  CompileResult r = compileWithDefaults(
      tc, {test::sourceDir() / "examples/crate/src/lib.rs", std::nullopt, {}}, opts);
  CHECK_FALSE(r.succeeded);
  CHECK(r.profile == ToolchainProfile::RustCuda);
  REQUIRE_FALSE(r.diagnostics.empty());
  CHECK(r.diagnostics[0].message.find("KERNELSCOPE_RUST_CUDA_BACKEND=/nonexistent") !=
        std::string::npos);
  for (Stage s : kAllStages) {
    const StageOutcome* st = r.stage(s);
    REQUIRE(st);
    CHECK_FALSE(st->available);
    CHECK(st->unavailableReason.find("fix:") != std::string::npos);
  }
}

TEST_CASE("the rust-cuda profile's driver runs its command and reads what the backend wrote") {
  // A cargo that records how it was run and writes the stand-in libNVVM PTX where the
  // real one would, announcing it in a compiler-artifact message.
  TempDir dir("kernelscope-rust-cuda");
  fs::path log = dir.path() / "cargo.log";
  std::string script =
      recordingCargo(log,
                     "while [ $# -gt 0 ]; do [ \"$1\" = --target-dir ] && T=$2; shift; done\n"
                     "mkdir -p \"$T/nvptx64-nvidia-cuda/release\"\n"
                     "cp '" +
                         (goldenDir() / "rust-cuda/add.ptx").string() +
                         "' \"$T/nvptx64-nvidia-cuda/release/kernels.ptx\"\n"
                         "echo "
                         "'{\"reason\":\"compiler-artifact\",\"filenames\":[\"'\"$T\"'/"
                         "nvptx64-nvidia-cuda/release/kernels.ptx\"]}'\n");
  fs::path nightly = fakeNightly(dir.path() / "nightly", script);
  writeFile(dir.path() / "cg/librustc_codegen_nvvm.so", "");
  writeFile(dir.path() / "cuda/nvvm/lib64/libnvvm.so", "");
  writeFile(dir.path() / "cuda/nvvm/libdevice/libdevice.10.bc", "");
  writeFile(dir.path() / "k/Cargo.toml",
            "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
            "[lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n");
  const std::string libRs = readWholeFile(goldenDir() / "rust-cuda/add.rs");
  writeFile(dir.path() / "k/src/lib.rs", libRs);
  ScopedEnv env;
  env.set("KERNELSCOPE_RUST_CUDA_TOOLCHAIN", nightly.string());
  env.set("KERNELSCOPE_RUST_CUDA_BACKEND", (dir.path() / "cg/librustc_codegen_nvvm.so").string());
  env.set("CUDA_HOME", (dir.path() / "cuda").string());

  test::requireToolchain();
  Toolchain tc = test::toolchain();
  tc.cacheDir = dir.path() / "cache";
  CompileOptions opts;
  opts.workspaceTrusted = true;  // these profiles run cargo: only in a trusted workspace
  opts.profile = ToolchainProfile::RustCuda;
  opts.stages = {Stage::Mir, Stage::LlvmIr, Stage::Ptx};
  CompileResult r = compileWithDefaults(tc, {dir.path() / "k/src/lib.rs", std::nullopt, {}}, opts);
  std::string messages;
  for (const auto& d : r.diagnostics) messages += d.message + "\n";
  INFO(messages);
  REQUIRE(r.succeeded);
  const std::string logged = readWholeFile(log);
  CHECK(logged.starts_with("rustc\n--lib\n--manifest-path\n" +
                           (dir.path() / "k/Cargo.toml").string() + "\n"));
  CHECK(logged.find("-Zbuild-std=core,alloc\n") != std::string::npos);
  CHECK(logged.find("-Zcodegen-backend=" + (dir.path() / "cg/librustc_codegen_nvvm.so").string()) !=
        std::string::npos);
  REQUIRE(r.stage(Stage::Ptx));
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK(r.stage(Stage::Mir)->unavailableReason.find("no MIR") != std::string::npos);
  CHECK(r.stage(Stage::LlvmIr)->unavailableReason.find("wrote no IR") != std::string::npos);
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].symbol == "add");
  // The stand-in PTX's `.loc` lines name add.cu, not this package's lib.rs: found by name.
  CHECK(r.kernels[0].definition.file == (dir.path() / "k/src/lib.rs").string());
  CHECK(r.kernels[0].definition.line == lineOf(libRs, "fn add("));
}

namespace {

/// A cuda-oxide build of tests/golden/profiles/cuda-oxide/vecadd.rs as `vecadd/src/main.rs`
/// in `dir`: a stand-in nightly whose cargo logs its arguments to `dir/cargo.log` and writes
/// the recorded PTX (its `.file` naming that main.rs) where the backend would.
CompileResult compileCudaOxideStandIn(const fs::path& dir, CompileOptions opts) {
  std::string ptx = readWholeFile(goldenDir() / "cuda-oxide/vecadd.sm_80.ptx");
  const std::string recorded = "/work/main/tests/golden/profiles/cuda-oxide/vecadd.rs";
  ptx.replace(ptx.find(recorded), recorded.size(), (dir / "vecadd/src/main.rs").string());
  writeFile(dir / "vecadd.ptx", ptx);
  fs::path nightly =
      fakeNightly(dir / "nightly",
                  recordingCargo(dir / "cargo.log", "cp '" + (dir / "vecadd.ptx").string() +
                                                        "' \"$CUDA_OXIDE_PTX_DIR/vecadd.ptx\"\n"));
  writeFile(dir / "be/librustc_codegen_cuda.so", "");
  writeFile(dir / "llc22",
            "#!/bin/sh\necho 'LLVM version 22.1.8'\necho '    nvptx64    - NVIDIA PTX 64-bit'\n",
            true);
  // cuda-oxide's examples are binaries: no library target.
  writeFile(dir / "vecadd/Cargo.toml",
            "[package]\nname = \"vecadd\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
  writeFile(dir / "vecadd/src/main.rs", readWholeFile(goldenDir() / "cuda-oxide/vecadd.rs"));
  ScopedEnv env;
  env.set("KERNELSCOPE_CUDA_OXIDE_TOOLCHAIN", nightly.string());
  env.set("KERNELSCOPE_CUDA_OXIDE_BACKEND", (dir / "be/librustc_codegen_cuda.so").string());
  env.set("CUDA_OXIDE_LLC", (dir / "llc22").string());

  test::requireToolchain();
  Toolchain tc = test::toolchain();
  tc.cacheDir = dir / "cache";
  opts.workspaceTrusted = true;  // these profiles run cargo: only in a trusted workspace
  opts.profile = ToolchainProfile::CudaOxide;
  CompileResult r = compileWithDefaults(tc, {dir / "vecadd/src/main.rs", std::nullopt, {}}, opts);
  std::string messages;
  for (const auto& d : r.diagnostics) messages += d.message + "\n";
  INFO(messages);
  REQUIRE(r.succeeded);
  return r;
}

}  // namespace

TEST_CASE(
    "the cuda-oxide profile's driver builds a binary package and reads the backend's PTX "
    "directory") {
  TempDir dir("kernelscope-cuda-oxide");
  CompileOptions opts;
  opts.arch = "sm_80";
  opts.optLevel = 1;
  opts.stages = {Stage::LlvmIr, Stage::Ptx};
  CompileResult r = compileCudaOxideStandIn(dir.path(), opts);
  CHECK(r.optLevel == 3);  // what the backend requires, not what was asked
  const std::string logged = readWholeFile(dir.path() / "cargo.log");
  CHECK(logged.starts_with("rustc\n--bins\n"));
  CHECK(logged.find("-Zalways-encode-mir") != std::string::npos);
  CHECK(logged.find("CUDA_OXIDE_TARGET=sm_80\n") != std::string::npos);
  CHECK(r.stage(Stage::Ptx)->available);
  CHECK(r.stage(Stage::LlvmIr)->unavailableReason.find("wrote no IR") != std::string::npos);
  REQUIRE(r.kernels.size() == 1);  // the device helpers are .funcs, not kernels
  CHECK(r.kernels[0].symbol == "vecadd");
  const std::string mainRs = readWholeFile(dir.path() / "vecadd/src/main.rs");
  CHECK(r.kernels[0].definition.file == (dir.path() / "vecadd/src/main.rs").string());
  CHECK(r.kernels[0].definition.line == lineOf(mainRs, "fn vecadd("));
}

TEST_CASE("a profile's PTX reaches ptxas with line ids: its SASS sits on the lines its PTX does") {
  test::requireToolchain();
  TempDir dir("kernelscope-cuda-oxide-sass");
  CompileOptions opts;
  opts.arch = "sm_80";
  opts.stages = {Stage::Ptx, Stage::Sass};
  CompileResult r = compileCudaOxideStandIn(dir.path(), opts);
  REQUIRE(r.stage(Stage::Sass));
  INFO(r.stage(Stage::Sass)->unavailableReason);
  REQUIRE(r.stage(Stage::Sass)->available);
  const std::string main = (dir.path() / "vecadd/src/main.rs").string();
  const std::string mainRs = readWholeFile(main);
  std::set<uint32_t> ptxLines, sassLines;
  for (const SourceLine& l : r.lineMap->sourceLinesWithCode(Stage::Ptx))
    if (l.file == main) ptxLines.insert(l.line);
  for (const SourceLine& l : r.lineMap->sourceLinesWithCode(Stage::Sass))
    if (l.file == main) sassLines.insert(l.line);
  // The add on line 25 and the index on line 15 are in both, and no SASS instruction is on a
  // line that has no PTX: the SASS took its PTX's chains, not ptxas's guess.
  CHECK(sassLines.count(lineOf(mainRs, "c[i] = a[i] + b[i];")));
  CHECK(sassLines.count(lineOf(mainRs, "(nvptx::_block_idx_x()")));
  for (uint32_t l : sassLines) {
    CAPTURE(l);
    CHECK(ptxLines.count(l));
  }
}

TEST_CASE("the cargo profiles do not run in an untrusted workspace, and say so") {
  CompileOptions opts;  // untrusted: the default
  for (auto profile : {ToolchainProfile::RustCuda, ToolchainProfile::CudaOxide}) {
    opts.profile = profile;
    CompileResult r = compileWithDefaults(
        Toolchain{}, {test::sourceDir() / "examples/crate/src/lib.rs", std::nullopt, {}}, opts);
    CHECK_FALSE(r.succeeded);
    REQUIRE(r.stage(Stage::Ptx));
    CHECK(r.stage(Stage::Ptx)
              ->unavailableReason.find("runs cargo, which runs the crate's build scripts; not run: "
                                       "the workspace is not trusted") != std::string::npos);
  }
}
