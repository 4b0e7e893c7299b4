// FileWatcher: the server's own watching, for clients that cannot register a file watcher.
//
// Polls the modification time and size of a small set of files (the modules, path
// dependencies and Cargo.toml that open kernels use, and the workspace's kernelscope.toml)
// on its own thread and reports the ones that changed. Polling a handful of
// files is cheap and works on every file system, unlike inotify on network mounts.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ks::server {

class FileWatcher {
 public:
  /// `changed` is called on the watcher's thread with the paths that changed.
  FileWatcher(std::function<void(std::vector<std::string>)> changed,
              std::chrono::milliseconds interval);
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  /// Replaces the set of watched files; their current state is the baseline.
  void watch(const std::set<std::string>& files);

 private:
  struct Stamp {
    long long mtimeNs = -1;  // -1: missing
    long long size = -1;
    bool operator==(const Stamp&) const = default;
  };
  static Stamp stampOf(const std::string& path);
  void loop();

  std::function<void(std::vector<std::string>)> changed_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, Stamp> files_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ks::server
