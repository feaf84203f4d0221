// Firmware images cached by content (lk.firmware). The key hashes every input file's
// bytes, the files they include (`#include "..."`) or import (`import "..."`) where they
// can be found, the build options, the startup and runtime objects' bytes, and the build
// of lanaikit itself (its executable's size and modification time, the clang path, a
// format version), with XXH3-128. An unchanged source is built once per run (memory) and once across
// runs (the directory holds <key>.elf images written with assembler::write_elf).
#pragma once

#include "assembler/build.h"
#include "assembler/image.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lanaikit::sim::lua {

// The cache key's hash: XXH3 with 128 bits (libxxhash), streamed. Every string is fed with
// its length first, so ("ab","c") and ("a","bc") differ.
class KeyHash {
public:
  KeyHash();
  ~KeyHash();
  KeyHash(const KeyHash&) = delete;
  KeyHash& operator=(const KeyHash&) = delete;
  void bytes(const void* data, size_t n);
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  void u64(uint64_t v); // little-endian, whatever the host
  std::string hex() const; // 32 hex digits

private:
  struct State;
  std::unique_ptr<State> state_;
};

class FirmwareCache {
public:
  // `dir` "" keeps images in memory only.
  FirmwareCache(std::string dir, std::string build_id);

  // The image built from `sources` (existing files) with `options`; builds it on a miss.
  // Throws std::runtime_error with the toolchain's diagnostics if the build fails.
  std::shared_ptr<const assembler::FirmwareImage> get(const std::vector<std::string>& sources,
                                                     const assembler::BuildOptions& options);

  // The key (32 hex digits) those inputs have now.
  std::string key(const std::vector<std::string>& sources, const assembler::BuildOptions& options) const;
  // Where an image of that key lives on disk ("" without a directory).
  std::string path_for(const std::string& key) const;

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

  // The build id of this executable: clang path, format version, /proc/self/exe size and
  // modification time.
  static std::string default_build_id();

private:
  std::string dir_;
  std::string build_id_;
  std::map<std::string, std::shared_ptr<const assembler::FirmwareImage>> memory_;
  uint64_t hits_ = 0, misses_ = 0;
};

} // namespace lanaikit::sim::lua
