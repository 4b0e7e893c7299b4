// The arch catalogue behind validation, help, occupancy and the server's capability; and the
// CLI reading the workspace's kernelscope.toml as the server does.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "GpuArch.h"
#include "Occupancy.h"
#include "OptionDecoding.h"
#include "Process.h"
#include "TestSupport.h"

using namespace ks;

TEST_CASE("the arch catalogue: every arch validates, in order, and the help names its range") {
  const auto& archs = gpuArchs();
  REQUIRE(archs.size() >= 20);
  for (size_t i = 0; i < archs.size(); ++i) {
    const std::string name = archs[i].name();
    INFO(name);
    CHECK(validateArch(name) == std::nullopt);
    CHECK(validateArch(name + "a") == std::nullopt);
    CHECK(gpuArch(name) == &archs[i]);
    CHECK_FALSE(archs[i].cudaFirst.empty());
    CHECK(cudaSupportFor(name)->first == archs[i].cudaFirst);
    // Occupancy has figures exactly for the archs whose SM the catalogue describes.
    CHECK(archLimits(name).has_value() == archs[i].figures.has_value());
    if (i > 0) CHECK(archs[i - 1].sm < archs[i].sm);
  }
  CHECK(archRangeText() == "sm_50 .. sm_121");
  CHECK(gpuArch(kDefaultArch) != nullptr);
  CHECK(gpuArch("sm_100f")->sm == 100);
  CHECK(gpuArch("sm_42") == nullptr);
  CHECK(gpuArch("compute_90") == nullptr);

  // An arch outside the catalogue is refused naming the catalogue's range.
  auto unknown = validateArch("sm_122");
  REQUIRE(unknown);
  CHECK(unknown->find("sm_50 .. sm_121") != std::string::npos);
  CHECK(validateArch("compute_90")->find("expected sm_XX") != std::string::npos);

  // The option's help and its check read the same catalogue.
  const OptionSpec& arch = *optionBySetting("arch");
  CHECK(arch.help.find(archRangeText()) != std::string_view::npos);
  CHECK(arch.help.find(kDefaultArch) != std::string_view::npos);
  CHECK_FALSE(optionProblem(arch, "arch", gpuArchs().back().name()));
  CHECK(optionProblem(arch, "arch", "sm_122"));

  // CUDA 13 dropped the archs before sm_75; CUDA 11.8 has no Blackwell.
  CHECK_FALSE(cudaSupports("13.0", "sm_70"));
  CHECK(cudaSupports("13.0", "sm_75"));
  CHECK_FALSE(cudaSupports("11.8", "sm_100"));
  CHECK(cudaSupports("11.8", "sm_90a"));
}

TEST_CASE("the CLI compiles for kernelscope.toml's arch unless --arch chooses another") {
  test::requireToolchain();
  TempDir dir("kernelscope-cli-settings");
  std::filesystem::create_directories(dir.path() / "src");
  const auto kernel = dir.path() / "src/vector_add.rs";
  std::filesystem::copy_file(test::sourceDir() / "examples/vector_add.rs", kernel);
  auto archOf = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"explain", kernel.string(), "--json", "--stages", "ptx"};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = test::runKernelscope(args);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    return std::make_pair(nlohmann::json::parse(r.out), r.err);
  };
  CHECK(archOf({}).first["arch"] == std::string(kDefaultArch));

  // The nearest kernelscope.toml above the file, as the editor's workspace has it.
  std::ofstream(dir.path() / "kernelscope.toml") << "arch = \"sm_80\"\noptLevel = 1\n";
  const auto fromFile = archOf({});
  CHECK(fromFile.first["arch"] == "sm_80");
  CHECK(fromFile.first["optLevel"] == 1);
  CHECK(fromFile.second.find("kernelscope.toml") == std::string::npos);
  CHECK(archOf({"--arch", "sm_75"}).first["arch"] == "sm_75");  // the command line wins

  // A bad value is reported, with the same words as the editor's, and the rest applies.
  std::ofstream(dir.path() / "kernelscope.toml") << "arch = \"sm_42\"\noptLevel = 2\n";
  const auto rest = archOf({});
  CHECK(rest.first["arch"] == std::string(kDefaultArch));
  CHECK(rest.first["optLevel"] == 2);
  CHECK(rest.second.find("kernelscope.toml: warning: arch: unknown architecture 'sm_42'") !=
        std::string::npos);
}
