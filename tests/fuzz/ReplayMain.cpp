// Runs a fuzz target over the files named on its command line once each, without libFuzzer:
// a build with any compiler checks that every kept corpus input passes (`ctest -R
// fuzz.replay`), and a crash libFuzzer found is replayed under a debugger.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// The custom mutators call libFuzzer's own; never called here.
extern "C" size_t LLVMFuzzerMutate(uint8_t*, size_t size, size_t) { return size; }

int main(int argc, char** argv) {
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i]))
      for (const auto& e : std::filesystem::directory_iterator(argv[i])) files.push_back(e.path());
    else
      files.emplace_back(argv[i]);
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), {});
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  std::printf("%zu inputs passed\n", inputs);
  return inputs == 0 ? 1 : 0;
}
