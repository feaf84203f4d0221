#include "lua/firmware_cache.h"

#include "assembler/elf.h"

#include <xxhash.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace lanaikit::sim::lua {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "lanaikit-lua-firmware-cache 2"; // 2: XXH3-128 keys

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

// The quoted names a file pulls in: `#include "x"` (C, assembly) and `import "x"` (the
// firmware language). Angle-bracket includes are system headers and not followed.
std::vector<std::string> dependencies(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) continue;
    std::string rest;
    if (line.compare(i, 1, "#") == 0) {
      i = line.find_first_not_of(" \t", i + 1);
      if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
      rest = line.substr(i + 7);
    } else if (line.compare(i, 6, "import") == 0) {
      rest = line.substr(i + 6);
    } else continue;
    const size_t q0 = rest.find('"');
    const size_t q1 = q0 == std::string::npos ? q0 : rest.find('"', q0 + 1);
    if (q1 != std::string::npos) out.push_back(rest.substr(q0 + 1, q1 - q0 - 1));
  }
  return out;
}

void hash_file(KeyHash& h, const std::string& path, const std::vector<std::string>& dirs,
               std::set<std::string>& seen, int depth) {
  std::error_code ec;
  const std::string canon = fs::weakly_canonical(path, ec).string();
  if (!seen.insert(canon).second || depth > 64) return;
  std::string text;
  h.str(canon);
  if (!read_file(path, text)) {
    h.str("<missing>");
    return;
  }
  h.str(text);
  for (const std::string& dep : dependencies(text)) {
    std::vector<std::string> candidates;
    if (fs::path(dep).is_absolute()) candidates.push_back(dep);
    else {
      candidates.push_back((fs::path(path).parent_path() / dep).string());
      for (const auto& d : dirs) candidates.push_back((fs::path(d) / dep).string());
    }
    bool found = false;
    for (const auto& c : candidates)
      if (fs::is_regular_file(c, ec)) {
        hash_file(h, c, dirs, seen, depth + 1);
        found = true;
        break;
      }
    if (!found) h.str("<unresolved>" + dep);
  }
}

} // namespace

struct KeyHash::State {
  XXH3_state_t* xxh = XXH3_createState();
  ~State() { XXH3_freeState(xxh); }
};

KeyHash::KeyHash() : state_(std::make_unique<State>()) {
  if (!state_->xxh || XXH3_128bits_reset(state_->xxh) != XXH_OK) throw std::bad_alloc();
}
KeyHash::~KeyHash() = default;

void KeyHash::bytes(const void* data, size_t n) { XXH3_128bits_update(state_->xxh, data, n); }

void KeyHash::u64(uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  bytes(b, sizeof b);
}

std::string KeyHash::hex() const {
  const XXH128_hash_t d = XXH3_128bits_digest(state_->xxh);
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(d.high64),
                static_cast<unsigned long long>(d.low64));
  return buf;
}

FirmwareCache::FirmwareCache(std::string dir, std::string build_id)
    : dir_(std::move(dir)), build_id_(std::move(build_id)) {}

std::string FirmwareCache::default_build_id() {
  std::string id = kFormat;
#ifdef LANAIKIT_CLANG
  id += std::string(" clang=") + LANAIKIT_CLANG;
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto size = fs::file_size(exe, ec);
    const auto mtime = fs::last_write_time(exe, ec).time_since_epoch().count();
    id += " exe=" + exe.string() + ":" + std::to_string(size) + ":" + std::to_string(mtime);
  }
  return id;
}

std::string FirmwareCache::key(const std::vector<std::string>& sources,
                               const assembler::BuildOptions& o) const {
  KeyHash h;
  h.str(build_id_);
  h.u64(uint64_t(o.opt));
  h.u64(o.debug);
  h.u64(o.sram_size);
  h.u64(o.zero_bss);
  h.u64(o.nostdlib);
  h.u64(o.include_dirs.size());
  for (const auto& s : o.include_dirs) h.str(s);
  h.u64(o.defines.size());
  for (const auto& s : o.defines) h.str(s);
  h.u64(o.extra_cflags.size());
  for (const auto& s : o.extra_cflags) h.str(s);
  std::set<std::string> seen;
  if (!o.nostdlib) {
    hash_file(h, o.startup, {}, seen, 0);
    for (const auto& r : o.runtime) hash_file(h, r, {}, seen, 0);
  }
  h.u64(sources.size());
  for (const auto& s : sources) {
    h.str("<source>");
    std::set<std::string> own; // a source listed twice still counts twice
    hash_file(h, s, o.include_dirs, own, 0);
  }
  return h.hex();
}

std::string FirmwareCache::path_for(const std::string& key) const {
  if (dir_.empty()) return "";
  return (fs::path(dir_) / (key + ".elf")).string();
}

std::shared_ptr<const assembler::FirmwareImage>
FirmwareCache::get(const std::vector<std::string>& sources, const assembler::BuildOptions& options) {
  const std::string k = key(sources, options);
  if (auto it = memory_.find(k); it != memory_.end()) {
    ++hits_;
    return it->second;
  }
  const std::string path = path_for(k);
  std::error_code ec;
  if (!path.empty() && fs::is_regular_file(path, ec)) {
    auto image = assembler::read_elf(path);
    if (image) {
      ++hits_;
      auto shared = std::make_shared<const assembler::FirmwareImage>(std::move(*image));
      memory_[k] = shared;
      return shared;
    }
    llvm::consumeError(image.takeError()); // a damaged entry: build again
  }
  ++misses_;
  std::vector<std::string> warnings;
  auto image = assembler::build(sources, options, &warnings);
  if (!image) throw std::runtime_error(llvm::toString(image.takeError()));
  for (const auto& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
  auto shared = std::make_shared<const assembler::FirmwareImage>(std::move(*image));
  memory_[k] = shared;
  if (!path.empty()) {
    // Written under a unique name and renamed: concurrent runs never see half a file.
    fs::create_directories(dir_, ec);
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    if (auto err = assembler::write_elf(*shared, tmp)) {
      llvm::consumeError(std::move(err)); // the cache is an optimisation: go on without it
      fs::remove(tmp, ec);
    } else {
      fs::rename(tmp, path, ec);
      if (ec) fs::remove(tmp, ec);
    }
  }
  return shared;
}

} // namespace lanaikit::sim::lua
