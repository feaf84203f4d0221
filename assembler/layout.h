// The layout table a firmware image exports to host code: struct layouts (size, field
// offsets and types), globals (pinned address, type), handler names and integer constants. Host libraries look
// fields and queues up by name at run time, so editing firmware never requires rebuilding
// C++ (ARCHITECTURE.md, "Firmware language").
//
// The firmware-language compiler fills a LayoutTable for each module and stores
// encode_layout()'s bytes in the object's `.lanaikit.layout` section (kLayoutSection); the
// linker decodes every object's table, merges them (identical duplicates, e.g. from a
// shared import, collapse; conflicting ones are a link error) and keeps the result in
// FirmwareImage::layout_table (looked up with FirmwareImage::layout("Struct")). The section
// is never loaded into SRAM.
//
// LLVM-free, like image.h.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace lanaikit::assembler {

inline constexpr std::string_view kLayoutSection = ".lanaikit.layout";

// One field of a struct. Offsets and sizes are in bytes; layouts are big-endian with
// natural alignment (docs/language.md). `type` is the field's type spelled as in the
// language ("u32", "u8[16]", "*SendReq", "Header").
struct LayoutField {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  std::string type;
  bool operator==(const LayoutField&) const = default;
};

struct StructLayout {
  std::string name;
  uint32_t size = 0;
  uint32_t align = 1;
  std::vector<LayoutField> fields; // in declaration order

  // The field of that name; throws std::out_of_range naming the struct, the field and the
  // fields that exist.
  const LayoutField& field(std::string_view name) const;
  bool has_field(std::string_view name) const;
  bool operator==(const StructLayout&) const = default;
};

struct GlobalLayout {
  std::string name;
  std::string type;                      // as in the language
  uint32_t size = 0;
  std::optional<uint32_t> pinned_address; // set for `@ 0x...` globals
  bool operator==(const GlobalLayout&) const = default;
};

// A top-level integer `const` of the firmware language, so hosts read queue depths and
// packet sizes from the image instead of copying them (docs/image.md, "Constants").
struct ConstantLayout {
  std::string name;
  // As in the language ("u32", "i16"); "int" for an untyped constant (`const PAGE = 4096;`).
  std::string type;
  // Two's complement bits: a signed value is sign-extended to 64 bits.
  uint64_t value = 0;
  bool is_signed = false;   // the type is signed, or an untyped constant is negative
  bool overridable = false; // declared `option const`: a build may set it with -D

  int64_t signed_value() const { return int64_t(value); }
  bool operator==(const ConstantLayout&) const = default;
};

struct LayoutTable {
  std::vector<StructLayout> structs;  // sorted by name after merge
  std::vector<GlobalLayout> globals;  // sorted by name after merge
  std::vector<std::string> handlers;  // names of `handler` functions, sorted after merge
  // Last, with a default, so that `LayoutTable{structs, globals, handlers}` stays complete.
  std::vector<ConstantLayout> constants = {}; // sorted by name after merge

  const StructLayout* find_struct(std::string_view name) const;
  // The struct of that name; throws std::out_of_range naming it and the structs that exist.
  const StructLayout& struct_layout(std::string_view name) const;
  const GlobalLayout* find_global(std::string_view name) const;
  bool is_handler(std::string_view name) const;
  const ConstantLayout* find_constant(std::string_view name) const;
  // The constant of that name; throws std::out_of_range naming it and the constants that
  // exist.
  const ConstantLayout& constant(std::string_view name) const;
  bool empty() const {
    return structs.empty() && globals.empty() && handlers.empty() && constants.empty();
  }
  bool operator==(const LayoutTable&) const = default;
};

// Serialization used in the object section and in image files. decode_layout throws
// std::runtime_error on malformed bytes (never reads out of bounds).
std::vector<uint8_t> encode_layout(const LayoutTable& table);
LayoutTable decode_layout(const uint8_t* data, size_t size);

// Decodes a `.lanaikit.layout` section: one or more encoded tables back to back (zero
// bytes between them are alignment padding), merged with merge_layout. An empty section is
// an empty table. Throws std::runtime_error like decode_layout and merge_layout.
LayoutTable decode_layout_section(const uint8_t* data, size_t size);

// Merges `from` into `into`. Throws std::runtime_error naming the entity when the same name
// has two different definitions (and then leaves `into` unchanged).
void merge_layout(LayoutTable& into, const LayoutTable& from);

// Merges many tables (the linker's objects, in link order) in O(n log n) for n entities:
// identical duplicates collapse, the first definition of a name is kept, and a different
// one is a conflict reported with the input that defined the name first. finish() gives
// the table merge_layout would build by merging the inputs one entity at a time (entries
// sorted by name), without copying and re-sorting the table per entity.
class LayoutMerger {
public:
  struct Conflict {
    unsigned first_input; // the input whose definition was kept
    std::string message;  // "layout conflict: struct X has two different definitions: ..."
  };
  // Adds every struct, then every global, constant and handler of `table`, from input
  // `input`; returns its conflicts in that order (the conflicting entities are skipped).
  std::vector<Conflict> add(const LayoutTable& table, unsigned input);
  LayoutTable finish() &&;

private:
  struct Entry {
    size_t position; // in table_'s vector of that kind
    unsigned input;
  };
  using Index = std::unordered_map<std::string, Entry>;
  template <class T>
  void add_entry(std::vector<T>& into, Index& index, const T& x, unsigned input, const char* kind,
                 std::vector<Conflict>& conflicts);
  LayoutTable table_;
  Index structs_, globals_, constants_;
  std::unordered_set<std::string> handlers_;
};

} // namespace lanaikit::assembler
