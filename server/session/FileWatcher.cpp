// FileWatcher: polling of modification times on a thread of its own.
#include "FileWatcher.h"

#include <sys/stat.h>

namespace ks::server {

FileWatcher::FileWatcher(std::function<void(std::vector<std::string>)> changed,
                         std::chrono::milliseconds interval)
    : changed_(std::move(changed)), interval_(interval), thread_([this] { loop(); }) {}

FileWatcher::~FileWatcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

FileWatcher::Stamp FileWatcher::stampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return Stamp{static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
               static_cast<long long>(st.st_size)};
}

void FileWatcher::watch(const std::set<std::string>& files) {
  std::map<std::string, Stamp> next;
  for (const auto& f : files) next[f] = stampOf(f);
  std::lock_guard lock(mutex_);
  files_ = std::move(next);
}

void FileWatcher::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    cv_.wait_for(lock, interval_, [this] { return stopping_; });
    if (stopping_) break;
    std::vector<std::string> changed;
    for (auto& [path, stamp] : files_) {
      Stamp now = stampOf(path);
      if (!(now == stamp)) {
        stamp = now;
        changed.push_back(path);
      }
    }
    if (changed.empty()) continue;
    lock.unlock();
    changed_(std::move(changed));
    lock.lock();
  }
}

}  // namespace ks::server
