// Reading the user's files safely, and keeping cache directories bounded. See Files.h.
#include "Files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace ks {

namespace fs = std::filesystem;

namespace {

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string sizeText(uintmax_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

/// The problem with a file of this status, or empty.
std::string statusProblem(const struct stat& st, uintmax_t maxBytes) {
  if (!S_ISREG(st.st_mode)) return "is " + kindOf(st.st_mode) + ", not a regular file";
  if (static_cast<uintmax_t>(st.st_size) > maxBytes)
    return "is " + sizeText(static_cast<uintmax_t>(st.st_size)) + ", more than the " +
           sizeText(maxBytes) + " kernelscope reads";
  return {};
}

}  // namespace

FileText readRegularFile(const std::filesystem::path& path, uintmax_t maxBytes) {
  FileText out;
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    out.missing = errno == ENOENT;
    out.error = out.missing ? "no such file" : std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = std::strerror(errno);
  } else if (auto problem = statusProblem(st, maxBytes); !problem.empty()) {
    out.error = problem;
  } else {
    out.text.reserve(static_cast<size_t>(st.st_size));
    char buf[65536];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.error = std::strerror(errno);
        break;
      }
      if (n == 0) break;
      out.text.append(buf, static_cast<size_t>(n));
      if (out.text.size() > maxBytes) {  // it grew while being read
        out.error = "is more than the " + sizeText(maxBytes) + " kernelscope reads";
        break;
      }
    }
  }
  ::close(fd);
  if (!out.ok()) out.text.clear();
  return out;
}

std::string readWholeFile(const std::filesystem::path& path) {
  return readRegularFile(path, kMaxToolOutputBytes).text;
}

std::string fileFingerprint(const std::filesystem::path& path, uintmax_t readAtMost) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "\x01missing";
  if (!S_ISREG(st.st_mode)) return std::string("\x01") += kindOf(st.st_mode);
  if (static_cast<uintmax_t>(st.st_size) > readAtMost)
    return "\x01metadata:" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) +
           "." + std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ino);
  FileText f = readRegularFile(path, readAtMost);
  return f.ok() ? f.text : "\x01unreadable";
}

std::optional<std::string> unreadableFileProblem(const std::filesystem::path& path,
                                                 uintmax_t maxBytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto problem = statusProblem(st, maxBytes);
  return problem.empty() ? std::nullopt : std::optional<std::string>(problem);
}

namespace {

uintmax_t treeBytes(const fs::path& dir) {
  uintmax_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->symlink_status(ec).type() == fs::file_type::regular) bytes += it->file_size(ec);
  return bytes;
}

}  // namespace

std::string stagingName(const std::string& name) {
  return name + ".tmp-" + std::to_string(::getpid());
}

namespace {

/// Whether `path` is a staging path (stagingName) of a process that has ended, or one left
/// for a day (its pid may have been taken by another process since).
bool abandonedStaging(const fs::path& path, fs::file_time_type modified) {
  const std::string name = path.filename().string();
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos) return false;
  const char* digits = name.c_str() + at + 5;
  char* end = nullptr;
  const long pid = std::strtol(digits, &end, 10);
  if (end == digits || (*end != '\0' && *end != '-') || pid <= 0) return false;  // not ours
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  return modified < fs::file_time_type::clock::now() - std::chrono::hours(24);
}

}  // namespace

size_t evictLeastRecentlyUsed(const fs::path& dir, uintmax_t maxBytes, const fs::path& keep,
                              const std::function<bool(const fs::path&)>& ours) {
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uintmax_t bytes = 0;
  };
  std::vector<Entry> entries;
  uintmax_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) {
      std::error_code ignored;
      const auto type = e.symlink_status(ignored).type();
      if ((type == fs::file_type::directory || type == fs::file_type::regular) &&
          abandonedStaging(e.path(), fs::last_write_time(e.path(), ignored)))
        fs::remove_all(e.path(), ignored);
      continue;
    }
    if (e.symlink_status(ec).type() != fs::file_type::directory || (ours && !ours(e.path())))
      continue;
    Entry entry{e.path(), fs::last_write_time(e.path(), ec), treeBytes(e.path())};
    total += entry.bytes;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  const auto recent = fs::file_time_type::clock::now() - std::chrono::minutes(10);
  size_t removed = 0;
  for (const auto& e : entries) {
    if (total <= maxBytes) break;
    if (e.path == keep || e.used > recent) continue;
    fs::remove_all(e.path, ec);
    if (!ec) total -= e.bytes, ++removed;
  }
  return removed;
}

void addSourceFile(std::vector<fs::path>& sourceFiles, fs::path file) {
  if (std::find(sourceFiles.begin(), sourceFiles.end(), file) == sourceFiles.end())
    sourceFiles.push_back(std::move(file));
}

uintmax_t cacheBoundBytes(const char* variable, uintmax_t defaultMiB) {
  const char* mb = std::getenv(variable);
  uintmax_t n = mb && *mb ? std::strtoull(mb, nullptr, 10) : defaultMiB;
  return n << 20;
}

std::string writeFileAtomically(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path staging = stagingName(path.string());
  std::error_code ec;
  {
    std::ofstream out(staging, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out.flush()) {
      out.close();
      std::filesystem::remove(staging, ec);
      return "cannot write " + path.string();
    }
  }
  std::filesystem::rename(staging, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(staging, ec);
    return "cannot write " + path.string() + ": " + why;
  }
  return {};
}

}  // namespace ks
