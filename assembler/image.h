// A linked firmware image: what the assembler/linker produces and what the vm loads.
//
// Deliberately free of LLVM types so that the vm and the tools can include it cheaply.
// docs/image.md describes the layout the linker produces and the ELF file format
// (write_elf / read_elf in assembler/elf.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assembler/layout.h"

namespace lanaikit::assembler {

// One loadable piece of SRAM. `bytes` are the initialised contents at `address`;
// `mem_size` >= bytes.size(), and the remainder (bss) is zero-filled by the loader.
struct Segment {
  std::string name;      // ".text", ".rodata", ".data", ".bss"
  uint32_t address = 0;  // load address in SRAM
  std::vector<uint8_t> bytes;
  uint32_t mem_size = 0; // bytes.size() plus zero-filled tail
  bool exec = false;
  bool write = false;

  uint32_t end() const { return address + mem_size; }
  bool operator==(const Segment&) const = default;
};

enum class SymbolKind : uint8_t { NoType, Function, Object };
enum class SymbolBinding : uint8_t { Local, Global, Weak };

struct Symbol {
  std::string name;
  uint32_t address = 0;
  uint32_t size = 0;
  SymbolKind kind = SymbolKind::NoType;
  SymbolBinding binding = SymbolBinding::Global;
  bool operator==(const Symbol&) const = default;
};

// One row of the line table: code from `address` up to the next row's address comes from
// files[file]:line:column. A row with `end_sequence` set closes a contiguous range (its
// address is one past the last byte covered) and carries no location.
struct LineRow {
  uint32_t address = 0;
  uint32_t file = 0; // index into FirmwareImage::files
  uint32_t line = 0;
  uint32_t column = 0;
  bool end_sequence = false;
  bool operator==(const LineRow&) const = default;
};

struct SourceLocation {
  std::string_view file;
  uint32_t line = 0;
  uint32_t column = 0;
};

struct FirmwareImage {
  std::vector<Segment> segments; // sorted by address, non-overlapping
  uint32_t entry = 0;            // address of _start (0: the reset vector)
  std::vector<Symbol> symbols;   // sorted by address, then name
  std::vector<std::string> files; // line table file names
  std::vector<LineRow> lines;     // sorted by address; empty without -g
  // Struct layouts, globals, handler names and constants exported by firmware-language objects,
  // merged by the linker (docs/image.md, "The layout table"). Empty for C/assembly-only
  // images. (Named layout_table because layout() is the lookup below.)
  LayoutTable layout_table;

  // Address of a symbol: the global (or weak) one of that name if any, else the first
  // local one. nullopt if there is none.
  std::optional<uint32_t> symbol(std::string_view name) const;
  // The layout of a firmware struct: image.layout("SendReq").field("len").offset.
  // Throws std::out_of_range naming the struct and the structs the image has.
  const StructLayout& layout(std::string_view struct_name) const;
  // A firmware constant: image.constant("MAX_PROCS").value. Throws std::out_of_range
  // naming the constant and the constants the image has.
  const ConstantLayout& constant(std::string_view name) const;
  // Address of a `handler` function's entry; nullopt if `name` is not a handler (or has no
  // symbol).
  std::optional<uint32_t> handler_entry(std::string_view name) const;
  // All symbols of that name (locals from several objects may share a name).
  std::vector<const Symbol*> symbols_named(std::string_view name) const;
  // The function containing `addr`: a Function symbol with addr in [address, address+size),
  // or, for symbols without a size (hand-written assembly without .size), the closest
  // Function/NoType symbol at or below `addr` in the same executable segment.
  // nullptr if none.
  const Symbol* symbol_at(uint32_t addr) const;
  // Source location of the instruction at `addr` (from DWARF .debug_line of objects
  // built with -g). nullopt outside any line-table sequence.
  std::optional<SourceLocation> line_at(uint32_t addr) const;
  // The lowest address whose line-table row is `line` of a file named `file` (the whole
  // path, or its last components: "raw.fw", "firmware/raw/raw.fw"); when that line has no
  // code (a comment, or optimised away), the next line of the file that has, as gdb
  // does; nullopt if none.
  std::optional<uint32_t> address_of_line(std::string_view file, uint32_t line) const;
  // A location as a user writes it: an address ("0x90", "144"), a symbol, or FILE:LINE.
  std::optional<uint32_t> resolve_location(std::string_view loc) const;

  // The segment containing `addr` (in [address, end())), or nullptr.
  const Segment* segment_at(uint32_t addr) const;
  // Highest address used + 1 (end of the last segment), 0 for an empty image.
  uint32_t end() const;
  // Where the image's data ends: end(), or past the highest pinned global of the layout
  // table if that is higher (pinned globals sit above the image, below the stack). The
  // loaders put the stack guard here.
  uint32_t data_end() const;
  // The image as one flat SRAM picture from address 0 up to end(), bss zero-filled.
  std::vector<uint8_t> flatten() const;
  // Reads a big-endian 32-bit word from the initialised bytes (0 for bss / unmapped).
  uint32_t word_at(uint32_t addr) const;

  bool operator==(const FirmwareImage&) const = default;
};

} // namespace lanaikit::assembler
