// The output directory of one command (`run`, `predict`, a sweep): its files are written
// all or none. Each file is staged under a temporary name with every write checked (a full
// disk or a file-size limit is an error, not a short file), and the staged files are renamed
// into place together only when the command has succeeded, results.json last; on any
// failure they are removed. The directory is locked (flock) for the command's lifetime, so
// two processes never write one directory. Outputs an earlier run listed in its run.json are
// removed before the new run starts, so a failed run never leaves stale results behind.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace arbsim {

// An output directory or file that cannot be created, locked or written.
class OutputError : public std::runtime_error {
 public:
  explicit OutputError(const std::string& what);
};

class OutputDir {
 public:
  // Creates `dir` and takes its lock. Throws OutputError (a path that is a file, too long,
  // unwritable, or locked by another process).
  explicit OutputDir(std::filesystem::path dir);
  ~OutputDir();  // removes staged files not committed; releases the lock
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  std::filesystem::path file(const std::string& name) const { return dir_ / name; }

  // Removes the files an earlier run wrote here (`known` names, and the outputs its run.json
  // lists inside this directory). Returns a warning to print (empty when there is none):
  // what was replaced, and any other files the directory holds except those in `keep`
  // (another tool's, e.g. a sweep's), which are left alone.
  std::string clear_previous(const std::vector<std::string>& known, const std::vector<std::string>& keep = {});

  // Writes `text` to `path` (through a temporary beside it, renamed), every write checked;
  // throws OutputError. For a single file outside a locked directory's staging.
  static void write_file(const std::filesystem::path& path, const std::string& text);

  // Writes `text` to NAME.tmp, checking every write; throws OutputError.
  void stage(const std::string& name, const std::string& text);
  // Renames the staged files into place in staging order. On failure removes every file it
  // renamed and every temporary, and throws OutputError.
  void commit();
  // Removes the staged temporaries (and, after a failed check of a file written by another
  // writer, that file): nothing of this command is left.
  void discard(const std::vector<std::string>& also = {});

 private:
  std::filesystem::path dir_;
  int lock_fd_ = -1;
  std::vector<std::string> staged_;
};

// True when `path` looks completely written: it ends in a newline, is below the process's
// file-size limit, and its filesystem still has free blocks. For files another library
// writes without reporting errors (SystemC's VCD writer).
bool looks_complete(const std::filesystem::path& path, std::string* why);

// A command's whole output: `files` (name, text) written into `dir` all or none, replacing
// an earlier run's files of those names. Prints the error and returns the exit code
// (apps/cli/cli.h): 0, 2 when the directory cannot be created or is in use, 3 when the files
// cannot be written completely.
int write_all_or_none(const std::filesystem::path& dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace arbsim
