// See StableHash.h.
#include "StableHash.h"

#include <llvm/Support/xxhash.h>

#include <cstdio>

namespace ks {

std::string stableDigest(const std::vector<std::string_view>& parts) {
  std::string framed;  // each part behind its length: no two lists frame alike
  size_t size = 0;
  for (auto part : parts) size += part.size() + 21;  // a size_t's digits and ':' at most
  framed.reserve(size);
  for (auto part : parts) {
    framed += std::to_string(part.size());
    framed += ':';
    framed += part;
  }
  return bytesDigest(framed);
}

std::string bytesDigest(std::string_view bytes) {
  const llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

}  // namespace ks
