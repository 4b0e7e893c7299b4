// EditorProcessWatch: polling of the editor's process with kill(pid, 0).
#include "EditorProcessWatch.h"

#include <cerrno>
#include <csignal>

namespace ks::server {

EditorProcessWatch::EditorProcessWatch(int pid, std::chrono::milliseconds interval,
                                       std::function<void()> gone)
    : pid_(pid), interval_(interval), gone_(std::move(gone)), thread_([this] { loop(); }) {}

EditorProcessWatch::~EditorProcessWatch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool EditorProcessWatch::alive(int pid) {
  // Signal 0 checks for the process without signalling it; EPERM means it exists but
  // belongs to someone else.
  return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

void EditorProcessWatch::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    cv_.wait_for(lock, interval_, [this] { return stopping_; });
    if (stopping_) break;
    if (alive(pid_)) continue;
    lock.unlock();
    gone_();
    return;
  }
}

}  // namespace ks::server
