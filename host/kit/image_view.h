// The protocol kit's view of a firmware image (docs/protocols.md, "The image view"): every
// SRAM place a host library touches, found by name through the image's layout table, so
// editing a control program never requires rebuilding C++ (ARCHITECTURE.md).
//
//   kit::ImageView img(image, "vmmc", "firmware/vmmc/vmmc.fw");
//   kit::Ref procs = img.global("vmmc_procs");          // VmmcProc[4]
//   uint32_t at = procs[2].field("consumed").addr();     // or img.ref("vmmc_procs[2].consumed")
//   uint32_t slots = procs[0].field("sendq").count();     // an array's elements
//
// A Ref is an address, a size and a type spelled as the language spells it ("u32",
// "VmmcReq[16]", "*VmmcProc"); fields and elements are resolved through the struct
// layouts. Every failure throws KitError naming the library, the path, and what exists
// instead, so a firmware edit that breaks a host library says what to fix.
#pragma once

#include "assembler/image.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lanaikit::kit {

class KitError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class ImageView;

class Ref {
public:
  Ref() = default; // unresolved: assign one from an ImageView before use
  uint32_t addr() const { return addr_; }
  uint32_t size() const { return size_; }
  const std::string& type() const { return type_; }
  const std::string& path() const { return path_; }

  // A field of a struct-typed place.
  Ref field(std::string_view name) const;
  // An element of an array-typed place; an index past the end throws.
  Ref operator[](uint32_t i) const;
  bool is_array() const;
  uint32_t count() const;     // elements of an array (throws if not an array)
  uint32_t elem_size() const; // bytes per element (throws if not an array)
  // The struct layout of a struct-typed place (throws otherwise).
  const assembler::StructLayout& layout() const;
  // An integer place: an integer type (u8..i64) or an enum (stored as its underlying
  // integer; the layout table has its variants as constants "Enum.VARIANT").
  bool is_integer() const;

private:
  friend class ImageView;
  Ref(const ImageView& view, uint32_t addr, uint32_t size, std::string type, std::string path)
      : view_(&view), addr_(addr), size_(size), type_(std::move(type)), path_(std::move(path)) {}
  const ImageView& view() const;
  const ImageView* view_ = nullptr;
  uint32_t addr_ = 0, size_ = 0;
  std::string type_, path_;
};

class ImageView {
public:
  // `who` prefixes every error ("vmmc: ..."); `expected` names the source the library
  // expects ("firmware/vmmc/vmmc.fw") for the hint in "no global" errors.
  ImageView(const assembler::FirmwareImage& image, std::string who, std::string expected = {});
  // Refs point back at their view: a view stays where it was made.
  ImageView(const ImageView&) = delete;
  ImageView& operator=(const ImageView&) = delete;

  const assembler::FirmwareImage& image() const { return image_; }
  const std::string& who() const { return who_; }

  // A global: pinned (`@ 0x...`) or placed by the linker. Its size and type come from the
  // layout table, or from the symbol for C and assembly objects (type "").
  Ref global(std::string_view name) const;
  bool has_global(std::string_view name) const;
  // A path from a global: "vmmc.sent", "vmmc_procs[2].sendq[0].seq", "vmmc_routes".
  Ref ref(std::string_view path) const;
  const assembler::StructLayout& layout(std::string_view struct_name) const;
  // A field's offset inside its struct, and a struct's size.
  uint32_t offset(std::string_view struct_name, std::string_view field) const;
  uint32_t size(std::string_view struct_name) const;
  // A firmware constant (the layout table exports every top-level `const`): its value as
  // built (a `-D` override included). constant32 also checks that it fits 32 bits.
  uint64_t constant(std::string_view name) const;
  uint32_t constant32(std::string_view name) const;
  // The entry address of a `handler` function.
  uint32_t handler(std::string_view name) const;

  [[noreturn]] void fail(const std::string& what) const;

private:
  friend class Ref;
  const assembler::FirmwareImage& image_;
  std::string who_, expected_;
};

} // namespace lanaikit::kit
