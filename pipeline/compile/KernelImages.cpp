// KernelImageCache: see KernelImages.h.
#include "KernelImages.h"

#include <charconv>

#include "Files.h"
#include "Process.h"
#include "StableHash.h"

namespace ks {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFormat = "kernelscope kernel image 1\n";
constexpr const char* kEntryFile = "image";

/// An image's own bytes, its cubin (which images may share) aside.
size_t bytesOf(const KernelImage& image) {
  size_t n = sizeof image + image.report.size() + (image.sass ? image.sass->size() : 0);
  for (const auto& u : image.unresolved) n += sizeof u + u.size();
  return n;
}

/// Each field as its length, a newline and its bytes; the digest of them all at the end.
std::string encode(const KernelImage& image) {
  std::string out(kFormat);
  auto field = [&](std::string_view bytes) {
    out += std::to_string(bytes.size());
    out += '\n';
    out.append(bytes);
  };
  field(image.report);
  field(image.relocatable ? "1" : "0");
  field(std::to_string(image.unresolved.size()));
  for (const auto& u : image.unresolved) field(u);
  field(image.cubin ? std::string_view(*image.cubin) : std::string_view());
  field(image.sass ? "1" : "0");
  field(image.sass ? *image.sass : "");
  out += bytesDigest(out);
  return out;
}

std::optional<KernelImage> decode(std::string_view bytes) {
  constexpr size_t kDigest = 32;  // bytesDigest's hex digits
  if (bytes.size() < kFormat.size() + kDigest || !bytes.starts_with(kFormat)) return {};
  const std::string_view body = bytes.substr(0, bytes.size() - kDigest);
  if (bytesDigest(body) != bytes.substr(body.size())) return {};
  std::string_view rest = body.substr(kFormat.size());
  auto field = [&]() -> std::optional<std::string_view> {
    size_t n = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec != std::errc() || end == rest.data() + rest.size() || *end != '\n') return {};
    rest.remove_prefix(static_cast<size_t>(end - rest.data()) + 1);
    if (n > rest.size()) return {};
    std::string_view f = rest.substr(0, n);
    rest.remove_prefix(n);
    return f;
  };
  KernelImage image;
  auto report = field(), relocatable = field(), unresolved = field();
  if (!report || !relocatable || !unresolved) return {};
  image.report = *report;
  image.relocatable = *relocatable == "1";
  size_t names = 0;
  std::from_chars(unresolved->data(), unresolved->data() + unresolved->size(), names);
  for (size_t i = 0; i < names; ++i) {
    auto name = field();
    if (!name) return {};
    image.unresolved.emplace_back(*name);
  }
  auto cubin = field(), disassembled = field(), sass = field();
  if (!cubin || !disassembled || !sass || !rest.empty()) return {};
  image.cubin = std::make_shared<const std::string>(*cubin);
  if (*disassembled == "1") image.sass = std::string(*sass);
  return image;
}

}  // namespace

KernelImageCache::KernelImageCache(size_t memoryBytes, fs::path dir, uintmax_t diskBytes)
    : capacity_(memoryBytes), dir_(std::move(dir)), diskBytes_(diskBytes) {}

std::shared_ptr<const KernelImage> KernelImageCache::find(const std::string& key) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++counters_.hits;
      return it->second->second;
    }
  }
  auto loaded = load(key);
  ++(loaded ? counters_.hits : counters_.misses);
  if (loaded) keepInMemory(key, loaded);
  return loaded;
}

void KernelImageCache::insert(const std::string& key, std::shared_ptr<const KernelImage> image) {
  if (!image) return;
  save(key, *image);
  keepInMemory(key, std::move(image));
}

void KernelImageCache::keepInMemory(const std::string& key,
                                    std::shared_ptr<const KernelImage> image) {
  std::lock_guard lock(mutex_);
  if (bytesOf(*image) + (image->cubin ? image->cubin->size() : 0) > capacity_) return;
  if (auto it = index_.find(key); it != index_.end()) {
    bytes_ -= release(*it->second->second);
    lru_.erase(it->second);
  }
  bytes_ += hold(*image);
  lru_.emplace_front(key, std::move(image));
  index_[key] = lru_.begin();
  while (bytes_ > capacity_) {
    bytes_ -= release(*lru_.back().second);
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

size_t KernelImageCache::hold(const KernelImage& image) {
  size_t n = bytesOf(image);
  if (image.cubin && cubinHolders_[image.cubin.get()]++ == 0) n += image.cubin->size();
  return n;
}

size_t KernelImageCache::release(const KernelImage& image) {
  size_t n = bytesOf(image);
  if (image.cubin) {
    auto it = cubinHolders_.find(image.cubin.get());
    if (it != cubinHolders_.end() && --it->second == 0) {
      n += image.cubin->size();
      cubinHolders_.erase(it);
    }
  }
  return n;
}

std::shared_ptr<const KernelImage> KernelImageCache::load(const std::string& key) const {
  if (dir_.empty()) return nullptr;
  const fs::path entry = dir_ / key;
  FileText file = readRegularFile(entry / kEntryFile, kMaxToolOutputBytes);
  if (!file.ok()) return nullptr;
  std::optional<KernelImage> image = decode(file.text);
  if (!image) return nullptr;
  std::error_code ec;
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);  // its last use
  return std::make_shared<const KernelImage>(std::move(*image));
}

void KernelImageCache::save(const std::string& key, const KernelImage& image) const {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  // Made whole beside its place and renamed into it: a reader sees all of it or nothing.
  const fs::path staging = dir_ / stagingName(key), entry = dir_ / key;
  RemovedOnExit cleanup(staging);
  fs::create_directories(staging, ec);
  if (ec || !writeFileAtomically(staging / kEntryFile, encode(image)).empty()) return;
  fs::remove_all(entry, ec);
  fs::rename(staging, entry, ec);
  evictLeastRecentlyUsed(dir_, diskBytes_, entry, [](const fs::path& p) {
    const std::string name = p.filename().string();
    return name.size() == 32 && name.find_first_not_of("0123456789abcdef") == std::string::npos;
  });
}

}  // namespace ks
