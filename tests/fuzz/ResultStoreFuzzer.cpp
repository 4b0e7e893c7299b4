// libFuzzer target over the result store's decoder (ResultStore.h: deserializeResult and
// deserializePasses, what `explain` reads back from ~/.cache/kernelscope/results/).
//
// Structure-aware: encoded bytes end with their digest, so byte mutations alone stop at the
// digest check. The custom mutator mutates the bytes before it and makes the digest again,
// as an entry damaged before it was sealed would be, so that the decoder itself meets
// counts, indexes and enums it never wrote (a count beyond the bytes left must not
// allocate). A result that decodes must encode and decode again to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "ResultStore.h"
#include "StableHash.h"

namespace {
constexpr size_t kDigestChars = 32;
}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize,
                                          unsigned seed) {
  if (seed % 8 == 0 || size <= kDigestChars || maxSize <= kDigestChars)
    return LLVMFuzzerMutate(data, size, maxSize);
  const size_t n = LLVMFuzzerMutate(data, size - kDigestChars, maxSize - kDigestChars);
  const std::string digest = ks::bytesDigest({reinterpret_cast<const char*>(data), n});
  std::memcpy(data + n, digest.data(), kDigestChars);
  return n + kDigestChars;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto r = ks::deserializeResult(bytes)) {
    const std::string again = ks::serializeResult(*r);
    auto back = ks::deserializeResult(again);
    if (!back || ks::serializeResult(*back) != again) std::abort();
  }
  if (auto p = ks::deserializePasses(bytes)) {
    const std::string again = ks::serializePasses(*p);
    auto back = ks::deserializePasses(again);
    if (!back || ks::serializePasses(*back) != again) std::abort();
  }
  return 0;
}
