// Points of a sweep as child processes of this machine (tools/sweep_runner.h).
#include "tools/sweep_runner.h"

#include "report/progress.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace lanaikit::tools::sweep {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = bool(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The point's result file, checked: "" and `result` set when it is fine, else what is
// wrong with it.
std::string load_result(const std::string& path, const Grid& grid, Json& result) {
  bool ok = false;
  const std::string text = read_file(path, ok);
  if (!ok)
    return "the script recorded no result (require \"sweep\"; sweep.result{...}: "
           "lua-scripts/lib/sweep.lua)";
  try {
    result = Json::parse(text);
  } catch (const std::exception& e) {
    return std::string("its result file is not JSON: ") + e.what();
  }
  return check_result(result, grid);
}

// The first non-empty line of a point's stderr: for `lanaikit run`, the error message.
std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) return line;
  return "";
}

struct Child {
  uint64_t index;
  std::string stem;
};

class Spawner {
public:
  Spawner(const Grid& grid, const RunConfig& config) : grid_(grid), config_(config) {
    dir_ = points_dir(config.out_dir);
    abs_dir_ = fs::absolute(dir_).string();
  }

  pid_t spawn(uint64_t index, const std::string& stem) {
    const std::string part = abs_dir_ + "/" + stem + ".json.part";
    std::error_code ec;
    fs::remove(part, ec);
    std::vector<std::string> argv{config_.exe, "run"};
    argv.insert(argv.end(), config_.run_options.begin(), config_.run_options.end());
    argv.push_back(config_.script);
    argv.insert(argv.end(), config_.script_args.begin(), config_.script_args.end());
    const std::vector<std::string> values = grid_.point(index);
    for (size_t k = 0; k < values.size(); ++k) {
      argv.push_back("--" + grid_.parameters[k].name);
      argv.push_back(values[k]);
    }
    std::vector<std::string> env;
    const std::string prefix = std::string(kResultVariable) + "=";
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) env.emplace_back(*e);
    env.push_back(prefix + part);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    const std::string out = abs_dir_ + "/" + stem + ".out", err = abs_dir_ + "/" + stem + ".err";
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& a : env) cenv.push_back(a.data());
    cenv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, config_.exe.c_str(), &actions, nullptr, cargv.data(), cenv.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + config_.exe + ": " + std::strerror(rc));
    return pid;
  }

  // What a child's end means for its point.
  Outcome finish(const Child& c, int status) {
    Outcome o;
    o.index = c.index;
    const std::string err_file = dir_ + "/" + c.stem + ".err";
    std::string why;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      const std::string part = abs_dir_ + "/" + c.stem + ".json.part";
      why = load_result(part, grid_, o.result);
      if (why.empty()) {
        std::error_code ec;
        fs::rename(part, abs_dir_ + "/" + c.stem + ".json", ec);
        if (ec) why = "cannot keep its result: " + ec.message();
      }
    } else if (WIFEXITED(status)) {
      why = "exit status " + std::to_string(WEXITSTATUS(status));
      if (const std::string line = first_line(err_file); !line.empty()) why += ": " + line;
    } else if (WIFSIGNALED(status)) {
      why = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    } else {
      why = "ended with wait status " + std::to_string(status);
    }
    o.ok = why.empty();
    if (!o.ok) o.failure = why + " [" + err_file + "]";
    return o;
  }

private:
  const Grid& grid_;
  const RunConfig& config_;
  std::string dir_, abs_dir_;
};

} // namespace

std::string points_dir(const std::string& out_dir) { return out_dir + "/points"; }

std::vector<Outcome> run_points(const Grid& grid, const RunConfig& config, const std::vector<uint64_t>& indices,
                                RunStats& stats) {
  const std::string dir = points_dir(config.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw std::runtime_error("cannot make the directory '" + dir + "'");

  std::vector<Outcome> outcomes(indices.size());
  std::vector<size_t> pending; // positions in `indices` still to run
  for (size_t k = 0; k < indices.size(); ++k) {
    const std::string stem = grid.stem(indices[k]);
    Json result;
    if (fs::exists(dir + "/" + stem + ".json") && load_result(dir + "/" + stem + ".json", grid, result).empty()) {
      outcomes[k].index = indices[k];
      outcomes[k].ok = true;
      outcomes[k].result = std::move(result);
      ++stats.reused;
    } else {
      pending.push_back(k);
    }
  }

  std::unique_ptr<report::Progress> progress;
  if (!config.progress_label.empty()) {
    progress = std::make_unique<report::Progress>(config.progress_label, indices.size());
    progress->update(stats.reused);
  }
  uint64_t done = stats.reused;
  Spawner spawner(grid, config);
  std::map<pid_t, std::pair<size_t, Child>> running;
  size_t next = 0;
  const unsigned jobs = config.jobs ? config.jobs : 1;
  while (next < pending.size() || !running.empty()) {
    while (next < pending.size() && running.size() < jobs) {
      const size_t k = pending[next++];
      Child c{indices[k], grid.stem(indices[k])};
      const pid_t pid = spawner.spawn(c.index, c.stem);
      running.emplace(pid, std::make_pair(k, std::move(c)));
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue; // not one of ours
    outcomes[it->second.first] = spawner.finish(it->second.second, status);
    running.erase(it);
    ++stats.ran;
    if (progress) progress->update(++done);
  }
  if (progress) progress->finish();
  return outcomes;
}

} // namespace lanaikit::tools::sweep
