// libFuzzer target over the image-file readers: decode_layout / decode_layout_section
// (the layout table, docs/image.md) and parse_elf (firmware images). Malformed input must
// be rejected with an error, never crash or read out of bounds; whatever decode_layout
// accepts must encode back to the same bytes, and whatever parse_elf accepts must survive
// a write/read round trip unchanged.
//
// Built only with -DLANAIKIT_FUZZ=ON and clang:
//   ninja -C build-fuzz image_fuzz && build-fuzz/tests/fuzz/image_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "assembler/elf.h"
#include "assembler/layout.h"

namespace as = lanaikit::assembler;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    as::LayoutTable t = as::decode_layout(data, size);
    if (as::encode_layout(t) != std::vector<uint8_t>(data, data + size)) {
      std::fprintf(stderr, "image_fuzz: decode_layout accepted non-canonical bytes\n");
      std::abort();
    }
  } catch (const std::runtime_error&) {
  }
  try {
    (void)as::decode_layout_section(data, size);
  } catch (const std::runtime_error&) {
  }
  auto img = as::parse_elf(std::string_view(reinterpret_cast<const char*>(data), size), "f");
  if (!img) {
    llvm::consumeError(img.takeError());
    return 0;
  }
  // Only images whose segments are ordered and disjoint are what write_elf promises to
  // round-trip; others are still parsed without crashing.
  for (size_t i = 1; i < img->segments.size(); ++i)
    if (img->segments[i - 1].end() > img->segments[i].address ||
        img->segments[i - 1].end() < img->segments[i - 1].address)
      return 0;
  std::vector<uint8_t> bytes = as::elf_bytes(*img);
  auto back = as::parse_elf(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "again");
  if (!back) {
    std::fprintf(stderr, "image_fuzz: write_elf output does not parse: %s\n",
                 llvm::toString(back.takeError()).c_str());
    std::abort();
  }
  return 0;
}
