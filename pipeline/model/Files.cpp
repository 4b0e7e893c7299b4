// Reading the user's files safely. See Files.h.
#include "Files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ks {

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

}  // namespace ks
