// DWARF line tables of relocatable objects -> LineRow at final addresses.
// This file is compiled with -fno-rtti: it derives from llvm::LoadedObjectInfo and libLLVM
// is built without RTTI (no typeinfo to link against).
#include "assembler/internal.h"

#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugLine.h"
#include "llvm/Object/ObjectFile.h"

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
