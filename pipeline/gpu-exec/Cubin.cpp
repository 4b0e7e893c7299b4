#include "Cubin.h"

#include <cstdint>
#include <cstring>

namespace ks::gpu {

namespace {

// ELF64 field offsets (the System V ABI's Elf64_Ehdr and Elf64_Shdr); read byte-wise, as
// elf.h is not on every machine that builds gpu-exec.
constexpr size_t kEhdrSize = 64;
constexpr size_t kShdrSize = 64;
constexpr size_t kPhdrSize = 56;
constexpr uint32_t kShtNobits = 8;

template <class T>
T read(std::string_view bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);  // little-endian hosts only (x86-64, aarch64)
  return v;
}

/// Whether [offset, offset + count * entry) lies within `size` bytes, without overflow.
bool within(uint64_t offset, uint64_t count, uint64_t entry, uint64_t size) {
  if (offset > size) return false;
  return count == 0 || (size - offset) / count >= entry;
}

}  // namespace

std::string checkCubin(std::string_view cubin) {
  if (cubin.size() < kEhdrSize || cubin.substr(0, 4) !=
                                      "\x7f"
                                      "ELF")
    return "the cubin is not an ELF file";
  if (cubin[4] != 2 || cubin[5] != 1) return "the cubin is not a 64-bit little-endian ELF file";
  const uint64_t size = cubin.size();
  const auto phoff = read<uint64_t>(cubin, 32);
  const auto shoff = read<uint64_t>(cubin, 40);
  const auto phentsize = read<uint16_t>(cubin, 54);
  const auto phnum = read<uint16_t>(cubin, 56);
  const auto shentsize = read<uint16_t>(cubin, 58);
  const auto shnum = read<uint16_t>(cubin, 60);
  const auto shstrndx = read<uint16_t>(cubin, 62);
  if ((phnum && phentsize < kPhdrSize) || (shnum && shentsize < kShdrSize))
    return "the cubin's ELF header is malformed";
  if (!within(phoff, phnum, phentsize, size) || !within(shoff, shnum, shentsize, size))
    return "the cubin is truncated (its header tables end past its " + std::to_string(size) +
           " bytes)";
  if (shnum == 0 || shstrndx >= shnum) return "the cubin has no section table";
  for (uint16_t i = 0; i < shnum; ++i) {
    size_t at = shoff + size_t(i) * shentsize;
    auto type = read<uint32_t>(cubin, at + 4);
    auto offset = read<uint64_t>(cubin, at + 24);
    auto bytes = read<uint64_t>(cubin, at + 32);
    if (type != kShtNobits && !within(offset, 1, bytes, size))
      return "the cubin is truncated (section " + std::to_string(i) + " ends past its " +
             std::to_string(size) + " bytes)";
  }
  for (uint16_t i = 0; i < phnum; ++i) {
    size_t at = phoff + size_t(i) * phentsize;
    auto offset = read<uint64_t>(cubin, at + 8);
    auto bytes = read<uint64_t>(cubin, at + 32);  // p_filesz
    if (!within(offset, 1, bytes, size))
      return "the cubin is truncated (segment " + std::to_string(i) + " ends past its " +
             std::to_string(size) + " bytes)";
  }
  return {};
}

}  // namespace ks::gpu
