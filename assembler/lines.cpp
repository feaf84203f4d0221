// DWARF line tables of relocatable objects -> LineRow at final addresses.
// This file is compiled with -fno-rtti: it derives from llvm::LoadedObjectInfo and libLLVM
// is built without RTTI (no typeinfo to link against).
#include "assembler/internal.h"

#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugLine.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DataExtractor.h"

namespace lanaikit::assembler::detail {

namespace {

// Tells DWARFContext where each section of the object ended up, so that it relocates
// addresses in .debug_line (R_LANAI_32 against section symbols) to final addresses.
class PlacedObject : public llvm::LoadedObjectInfoHelper<PlacedObject> {
public:
  explicit PlacedObject(std::function<std::optional<uint32_t>(uint64_t)> addr)
      : addr_(std::move(addr)) {}
  uint64_t getSectionLoadAddress(const llvm::object::SectionRef& sec) const override {
    // 0 means "not loaded" to DWARFContext, which then keeps the object's own address
    // (also 0 in a relocatable object): the right answer for a section placed at 0 too.
    return addr_(sec.getIndex()).value_or(0);
  }

private:
  std::function<std::optional<uint32_t>(uint64_t)> addr_;
};

// LLVM 14 crashes (a wild jump in DWARFFormValue::extractValue, reached from
// DWARFDebugLine::Prologue::parse; llvm-dwarfdump-14 does too) on a DWARF 5 line-table
// header whose directory or file entry format names a form it does not expect, such as 0
// (tests/fuzz/crashes/link-segv-in-libllvm). So every header of .debug_line is read here
// first, up to its file entry format, and LLVM only sees line tables whose formats use the
// forms compilers write for them. Returns why a table is refused, or "" if all are fine.
std::string check_line_table_forms(llvm::StringRef section, bool little_endian) {
  using namespace llvm::dwarf;
  auto form_known = [](uint64_t form) {
    switch (form) {
    case DW_FORM_string: case DW_FORM_line_strp: case DW_FORM_strp: case DW_FORM_udata:
    case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
    case DW_FORM_data16: case DW_FORM_block: return true;
    default: return false;
    }
  };
  llvm::DataExtractor data(section, little_endian, 4);
  uint64_t unit = 0;
  while (unit < section.size()) {
    llvm::DataExtractor::Cursor c(unit);
    uint64_t length = data.getU32(c);
    unsigned offset_size = 4;
    if (length == 0xFFFFFFFF) { // the 64-bit DWARF format
      length = data.getU64(c);
      offset_size = 8;
    }
    const uint64_t body = c.tell();
    if (!c || length > section.size() - body) {
      llvm::consumeError(c.takeError());
      return "the unit at offset " + std::to_string(unit) + " runs past the section's end";
    }
    if (data.getU16(c) >= 5) { // the version
      data.skip(c, 2);                  // address_size, segment_selector_size
      data.skip(c, offset_size);        // header_length
      data.skip(c, 5);                  // instruction length, ops, is_stmt, line base and range
      const uint8_t opcode_base = data.getU8(c);
      data.skip(c, opcode_base ? opcode_base - 1u : 0u); // standard_opcode_lengths
      // One entry format: (content type, form) pairs.
      auto entry_format = [&](const char* which, std::vector<uint64_t>& forms) -> std::string {
        const uint8_t count = data.getU8(c);
        for (uint8_t i = 0; i < count && c; ++i) {
          data.getULEB128(c); // the content type (LLVM skips types it does not know)
          const uint64_t form = data.getULEB128(c);
          if (c && !form_known(form))
            return "form 0x" + llvm::utohexstr(form) + " in the " + which +
                   " entry format of the unit at offset " + std::to_string(unit);
          forms.push_back(form);
        }
        return {};
      };
      std::vector<uint64_t> dir_forms, file_forms;
      if (std::string why = entry_format("directory", dir_forms); !why.empty()) return why;
      // Entries with an empty format take no bytes, so their count (up to 2^64 in a
      // damaged header) bounds nothing: LLVM would append that many empty entries, and
      // this loop spun over them (link_fuzz found such a header; it hung the link). DWARF 5
      // entries always have a path, so such a table is refused.
      auto counted = [&](const char* which, const std::vector<uint64_t>& forms,
                         uint64_t count) -> std::string {
        if (c && forms.empty() && count > 0)
          return std::to_string(count) + " " + which + " entries with an empty entry format in the unit at offset " +
                 std::to_string(unit);
        return {};
      };
      const uint64_t dirs = data.getULEB128(c);
      if (std::string why = counted("directory", dir_forms, dirs); !why.empty()) return why;
      for (uint64_t d = 0; d < dirs && c; ++d)
        for (uint64_t form : dir_forms) {
          switch (form) {
          case DW_FORM_string: data.getCStrRef(c); break;
          case DW_FORM_line_strp: case DW_FORM_strp: data.skip(c, offset_size); break;
          case DW_FORM_udata: data.getULEB128(c); break;
          case DW_FORM_data1: data.skip(c, 1); break;
          case DW_FORM_data2: data.skip(c, 2); break;
          case DW_FORM_data4: data.skip(c, 4); break;
          case DW_FORM_data8: data.skip(c, 8); break;
          case DW_FORM_data16: data.skip(c, 16); break;
          case DW_FORM_block: data.skip(c, data.getULEB128(c)); break;
          }
        }
      if (std::string why = entry_format("file", file_forms); !why.empty()) return why;
      if (std::string why = counted("file", file_forms, data.getULEB128(c)); !why.empty()) return why;
    }
    // A header cut short is LLVM's to report (it does, as a warning): only forms crash it.
    llvm::consumeError(c.takeError());
    unit = body + length;
  }
  return {};
}

} // namespace

void read_line_tables(const llvm::object::ObjectFile& obj,
                      const std::function<std::optional<uint32_t>(uint64_t)>& section_address,
                      FileTable& files, std::vector<LineRow>& rows,
                      std::vector<std::string>& warnings) {
  bool has_lines = false;
  for (const llvm::object::SectionRef& sec : obj.sections())
    if (auto name = sec.getName(); name && *name == ".debug_line")
      has_lines = true;
  if (!has_lines)
    return;
  for (const llvm::object::SectionRef& sec : obj.sections()) {
    auto name = sec.getName();
    if (!name || *name != ".debug_line") {
      llvm::consumeError(name.takeError());
      continue;
    }
    auto contents = sec.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      continue;
    }
    if (std::string why = check_line_table_forms(*contents, obj.isLittleEndian()); !why.empty()) {
      warnings.push_back(obj.getFileName().str() + ": warning: line table ignored: " + why);
      return;
    }
  }

  PlacedObject placed(section_address);
  std::string obj_name = obj.getFileName().str();
  auto report = [&](llvm::Error e) {
    warnings.push_back(obj_name + ": warning: line table: " + llvm::toString(std::move(e)));
  };
  std::unique_ptr<llvm::DWARFContext> ctx = llvm::DWARFContext::create(
      obj, llvm::DWARFContext::ProcessDebugRelocations::Process, &placed, "", report, report);

  for (const auto& cu : ctx->compile_units()) {
    const llvm::DWARFDebugLine::LineTable* lt = ctx->getLineTableForUnit(cu.get());
    if (!lt)
      continue;
    const char* comp_dir = cu->getCompilationDir();
    std::map<uint64_t, uint32_t> file_ids; // DWARF file index -> FileTable id
    for (const llvm::DWARFDebugLine::Sequence& seq : lt->Sequences) {
      if (seq.SectionIndex != llvm::object::SectionedAddress::UndefSection &&
          !section_address(seq.SectionIndex))
        continue; // code not in the image
      for (uint32_t i = seq.FirstRowIndex; i < seq.LastRowIndex && i < lt->Rows.size(); ++i) {
        const llvm::DWARFDebugLine::Row& row = lt->Rows[i];
        LineRow out;
        out.address = static_cast<uint32_t>(row.Address.Address);
        out.line = row.Line;
        out.column = row.Column;
        out.end_sequence = row.EndSequence;
        if (!row.EndSequence) {
          auto it = file_ids.find(row.File);
          if (it == file_ids.end()) {
            std::string name;
            if (!lt->getFileNameByIndex(
                    row.File, comp_dir ? comp_dir : "",
                    llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name))
              name = "<unknown>";
            it = file_ids.emplace(row.File, files.id(name)).first;
          }
          out.file = it->second;
        }
        rows.push_back(out);
      }
    }
  }
}

} // namespace lanaikit::assembler::detail
