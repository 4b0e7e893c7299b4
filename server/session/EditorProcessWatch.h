// EditorProcessWatch: the server exits when the editor that started it dies.
//
// LSP's `initialize` names the editor's process (`processId`); an editor that crashes or is
// killed never sends `exit`, and its server may not see its stdin close (a wrapper script
// or a forked helper keeps the pipe open). So, as rust-analyzer and clangd do, the server
// polls that process on a thread of its own and reports once it is gone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ks::server {

class EditorProcessWatch {
 public:
  /// Polls process `pid` every `interval`; calls `gone` once, on the watch's thread, when
  /// no such process exists any more.
  EditorProcessWatch(int pid, std::chrono::milliseconds interval, std::function<void()> gone);
  ~EditorProcessWatch();
  EditorProcessWatch(const EditorProcessWatch&) = delete;
  EditorProcessWatch& operator=(const EditorProcessWatch&) = delete;

  /// Whether process `pid` exists (a process of another user counts: it exists).
  static bool alive(int pid);

 private:
  void loop();

  int pid_;
  std::chrono::milliseconds interval_;
  std::function<void()> gone_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ks::server
