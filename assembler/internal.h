// Internal helpers shared by the assembler library's translation units. Not installed API.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "assembler/image.h"
#include "llvm/Support/Error.h"

namespace llvm::object {
class ObjectFile;
}

namespace lanaikit::assembler::detail {

inline llvm::Error make_error(const llvm::Twine& msg) {
  return llvm::make_error<llvm::StringError>(msg, llvm::inconvertibleErrorCode());
}

// Accumulates file names for a line table, deduplicated.
struct FileTable {
  std::vector<std::string> files;
  std::map<std::string, uint32_t> ids;
  uint32_t id(const std::string& name) {
    auto [it, inserted] = ids.emplace(name, static_cast<uint32_t>(files.size()));
    if (inserted)
      files.push_back(name);
    return it->second;
  }
};

// Reads the DWARF .debug_line tables of a relocatable object. `section_address` maps an
// ELF section index of that object to its final address, or nullopt if the section is not
// part of the image; rows in such sections are dropped. Problems in the DWARF data are
// reported as warnings (the line table is an aid, not required for a working image).
// Compiled without RTTI (lines.cpp derives from an LLVM class with a vtable).
void read_line_tables(const llvm::object::ObjectFile& obj,
                      const std::function<std::optional<uint32_t>(uint64_t)>& section_address,
                      FileTable& files, std::vector<LineRow>& rows,
                      std::vector<std::string>& warnings);

} // namespace lanaikit::assembler::detail
