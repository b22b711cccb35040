#include "apps/cli/output_dir.h"
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>
#include "apps/cli/cli.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace fs = std::filesystem;

OutputError::OutputError(const std::string& what) : std::runtime_error(one_line(what)) {}

namespace {

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// Writes all of `text` to a new file; false with errno set on any short or failed write.
bool write_whole(const fs::path& p, const std::string& text) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      ::close(fd);
      errno = e;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0;
}

// The outputs the run.json of an earlier run lists (relative names inside the directory).
std::vector<std::string> listed_outputs(const fs::path& run_json) {
  std::vector<std::string> out;
  std::string text;
  try {
    text = read_text_file(run_json.string());  // not a regular file (a directory, say): none
  } catch (const ConfigError&) {
    return out;
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("outputs") || !j["outputs"].is_array()) return out;
  for (const auto& o : j["outputs"])
    if (o.is_string()) out.push_back(o.get<std::string>());
  return out;
}

// A name that stays inside the directory (no "..", not absolute).
bool inside(const std::string& name) {
  const fs::path p(name);
  return !name.empty() && p.is_relative() && std::none_of(p.begin(), p.end(), [](const fs::path& e) {
    return e == "..";
  });
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

OutputDir::OutputDir(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw OutputError("cannot create output directory " + quoted(dir_) + ": " + ec.message());
  if (!fs::is_directory(dir_, ec)) throw OutputError("output path " + quoted(dir_) + " is not a directory");
  const fs::path lock = dir_ / ".lock";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw OutputError("cannot write in " + quoted(dir_) + ": " + std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw OutputError(quoted(dir_) + " is being written by another pcie-arbsim process (lock " + quoted(lock) + ")");
  }
}

OutputDir::~OutputDir() {
  discard();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

std::string OutputDir::clear_previous(const std::vector<std::string>& known, const std::vector<std::string>& keep) {
  std::vector<std::string> names = listed_outputs(dir_ / "run.json");
  names.insert(names.end(), known.begin(), known.end());
  std::set<std::string> ours(known.begin(), known.end()), removed;
  ours.insert(keep.begin(), keep.end());
  for (const std::string& n : names) {
    std::error_code ec;
    if (std::find(keep.begin(), keep.end(), n) != keep.end()) continue;
    if (inside(n) && fs::is_regular_file(dir_ / n, ec) && fs::remove(dir_ / n, ec)) removed.insert(n);
    ours.insert(n);
  }
  std::vector<std::string> other;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.empty() || n[0] == '.' || ours.count(n)) continue;
    other.push_back(n);
  }
  std::sort(other.begin(), other.end());
  std::string warning;
  if (!removed.empty())
    warning = "replaced the outputs of an earlier run in " + quoted(dir_) + " (" +
              join(std::vector<std::string>(removed.begin(), removed.end())) + ")";
  if (!other.empty())
    warning += std::string(warning.empty() ? "" : "; ") + quoted(dir_) + " also holds " + join(other) +
               ", which this run does not write: left as they are";
  return warning;
}

void OutputDir::write_file(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += ".tmp";
  std::error_code ec;
  if (!write_whole(tmp, text)) {
    const std::string why = std::strerror(errno);
    fs::remove(tmp, ec);
    throw OutputError("cannot write " + quoted(path) + ": " + why);
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw OutputError("cannot write " + quoted(path) + ": " + ec.message());
  }
}

void OutputDir::stage(const std::string& name, const std::string& text) {
  const fs::path tmp = dir_ / (name + ".tmp");
  if (!write_whole(tmp, text)) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw OutputError("cannot write " + quoted(dir_ / name) + ": " + why);
  }
  staged_.push_back(name);
}

void OutputDir::commit() {
  std::vector<std::string> done;
  for (const std::string& name : staged_) {
    std::error_code ec;
    fs::rename(dir_ / (name + ".tmp"), dir_ / name, ec);
    if (ec) {
      const std::string why = ec.message();
      discard(done);
      throw OutputError("cannot write " + quoted(dir_ / name) + ": " + why);
    }
    done.push_back(name);
  }
  staged_.clear();
}

void OutputDir::discard(const std::vector<std::string>& also) {
  std::error_code ec;
  for (const std::string& name : staged_) fs::remove(dir_ / (name + ".tmp"), ec);
  for (const std::string& name : also) fs::remove(dir_ / name, ec);
  staged_.clear();
}

bool looks_complete(const fs::path& path, std::string* why) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) {
    *why = ec.message();
    return false;
  }
  rlimit lim{};
  if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && size >= lim.rlim_cur) {
    *why = "it reached the file-size limit (ulimit -f)";
    return false;
  }
  struct statvfs vfs {};
  if (statvfs(path.c_str(), &vfs) == 0 && vfs.f_bfree == 0) {
    *why = "its filesystem is full";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  char last = 0;
  if (size == 0 || !in.seekg(-1, std::ios::end) || !in.get(last) || last != '\n') {
    *why = "it ends in the middle of a line";
    return false;
  }
  return true;
}

int write_all_or_none(const std::filesystem::path& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  std::unique_ptr<OutputDir> out;
  try {
    out = std::make_unique<OutputDir>(dir);
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    std::vector<std::string> names;
    for (const auto& f : files) names.push_back(f.first);
    // What it replaces is said, as `run` says it (predict and jobs removed a run's results
    // from DIR without a word).
    const std::string replaced = out->clear_previous(names);
    if (!replaced.empty()) std::cerr << "warning: " << replaced << "\n";
    for (const auto& [name, text] : files) out->stage(name, text);
    out->commit();
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitIoError;
  }
  return kExitOk;
}

}  // namespace arbsim
