// ParkedResult: see ParkedResult.h. zstd through LLVM's Compression.h, which the LLVM the
// pipeline links is built with; its fastest level, as every save of a large file parks a
// result and few are read back.
#include "ParkedResult.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Compression.h>
#include <llvm/Support/Error.h>

#include "ResultStore.h"

namespace ks {

namespace {
constexpr int kZstdLevel = 1;
}  // namespace

bool ParkedResult::parkable(const CompileResult& result) {
  return result.succeeded && !result.cancelled && result.pending.empty();
}

std::shared_ptr<const ParkedResult> ParkedResult::park(const CompileResult& result) {
  if (!parkable(result) || !llvm::compression::zstd::isAvailable()) return nullptr;
  const std::string bytes = serializeResult(result);
  llvm::SmallVector<uint8_t, 0> packed;
  llvm::compression::zstd::compress(llvm::arrayRefFromStringRef(bytes), packed, kZstdLevel);
  if (packed.empty()) return nullptr;
  auto parked = std::make_shared<ParkedResult>();
  parked->packed_.assign(reinterpret_cast<const char*>(packed.data()), packed.size());
  parked->serializedBytes_ = bytes.size();
  return parked;
}

std::shared_ptr<const CompileResult> ParkedResult::unpark() const {
  llvm::SmallVector<uint8_t, 0> bytes;
  if (llvm::Error e = llvm::compression::zstd::decompress(llvm::arrayRefFromStringRef(packed_),
                                                          bytes, serializedBytes_)) {
    llvm::consumeError(std::move(e));
    return nullptr;
  }
  auto result = deserializeResult(llvm::toStringRef(bytes));
  if (!result) return nullptr;
  return std::make_shared<const CompileResult>(std::move(*result));
}

}  // namespace ks
