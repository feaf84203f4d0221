#include "assembler/link.h"
#include "base/hex.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include "assembler/internal.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace lanaikit::assembler {

namespace {

using detail::make_error;
using ELFT = llvm::object::ELF32BE;
using ElfObj = llvm::object::ELFObjectFile<ELFT>;
using Shdr = ELFT::Shdr;

uint32_t align_up(uint32_t v, uint32_t a) {
  if (a <= 1)
    return v;
  return (v + a - 1) & ~(a - 1);
}

// Output section classes, in layout order.
enum class Out { Text, RoData, Data, Bss, None };

const char* out_name(Out o) {
  switch (o) {
  case Out::Text: return ".text";
  case Out::RoData: return ".rodata";
  case Out::Data: return ".data";
  case Out::Bss: return ".bss";
  case Out::None: break;
  }
  return "";
}

bool has_prefix(llvm::StringRef name, llvm::StringRef base) {
  return name == base || name.startswith((base + ".").str());
}

Out classify(llvm::StringRef name, const Shdr& sh) {
  if (!(sh.sh_flags & llvm::ELF::SHF_ALLOC))
    return Out::None;
  if (has_prefix(name, ".text"))
    return Out::Text;
  if (has_prefix(name, ".rodata"))
    return Out::RoData;
  if (has_prefix(name, ".bss") || has_prefix(name, ".sbss") ||
      sh.sh_type == llvm::ELF::SHT_NOBITS)
    return Out::Bss;
  if (has_prefix(name, ".data") || has_prefix(name, ".sdata"))
    return Out::Data;
  if (sh.sh_flags & llvm::ELF::SHF_EXECINSTR)
    return Out::Text;
  if (sh.sh_flags & llvm::ELF::SHF_WRITE)
    return Out::Data;
  return Out::RoData;
}

struct InSection {
  unsigned obj = 0;
  unsigned index = 0; // ELF section index in its object
  std::string name;
  Out out = Out::None;
  uint32_t align = 1;
  uint32_t size = 0;
  llvm::ArrayRef<uint8_t> data; // empty for NOBITS
  uint32_t addr = 0;
};

struct ObjSym {
  std::string name;
  uint16_t shndx = 0;
  uint32_t value = 0;
  uint32_t size = 0;
  uint8_t type = 0;
  uint8_t bind = 0;
  bool used = false;   // referenced by a relocation in an allocated section
  uint32_t addr = 0;   // final address, once resolved
  bool resolved = false;
  bool in_layout = false; // defined in a .lanaikit.layout section (not part of the image)
};

struct InObject {
  const Object* src = nullptr;
  std::unique_ptr<ElfObj> elf;
  std::vector<int> section_map; // ELF section index -> index in sections, or -1
  std::vector<ObjSym> syms;     // the symbol table, index for index
  std::vector<unsigned> layout_sections; // ELF indices of .lanaikit.layout sections
  bool included = false;
  bool is_library = false;
};

struct GlobalSym {
  bool defined = false;
  bool weak_def = false;
  bool common = false;
  unsigned def_obj = 0;
  unsigned def_sym = 0;
  uint32_t common_size = 0;
  uint32_t common_align = 1;
  std::vector<unsigned> definers;   // objects with a strong definition (duplicates)
  std::vector<unsigned> referrers;  // objects with a non-weak undefined reference
  bool strong_ref = false;
  bool used = false;
  uint32_t addr = 0;
  bool linker_defined = false;
};

const char* reloc_name(uint32_t type) {
  switch (type) {
  case llvm::ELF::R_LANAI_NONE: return "R_LANAI_NONE";
  case llvm::ELF::R_LANAI_21: return "R_LANAI_21";
  case llvm::ELF::R_LANAI_21_F: return "R_LANAI_21_F";
  case llvm::ELF::R_LANAI_25: return "R_LANAI_25";
  case llvm::ELF::R_LANAI_32: return "R_LANAI_32";
  case llvm::ELF::R_LANAI_HI16: return "R_LANAI_HI16";
  case llvm::ELF::R_LANAI_LO16: return "R_LANAI_LO16";
  }
  return "unknown";
}

class Linker {
public:
  Linker(const LinkInputs& in, const LinkOptions& opt) : in_(in), opt_(opt) {}
  llvm::Expected<FirmwareImage> run();

private:
  void load(const Object& o, bool library);
  void add_symbols(unsigned oi);
  void pull_libraries();
  bool object_resolves_undefined(unsigned oi) const;
  void check_symbols();
  void layout();
  void resolve_addresses();
  void relocate();
  void merge_layouts();
  void check_pinned();
  void build_image();
  std::string describe_place(const InSection& s, uint32_t off) const;
  std::string sym_display(unsigned oi, uint32_t symidx) const;

  const LinkInputs& in_;
  const LinkOptions& opt_;
  std::vector<InObject> objs_;
  std::vector<InSection> secs_;
  std::map<std::string, GlobalSym> globals_;
  std::vector<std::string> errors_;
  std::vector<std::string> warnings_;
  std::vector<unsigned> order_; // included objects in link order
  std::vector<std::vector<uint8_t>> contents_; // per InSection, relocated bytes
  // Layout results.
  uint32_t text_start_ = 0, text_end_ = 0, ro_start_ = 0, ro_end_ = 0, data_start_ = 0,
           data_end_ = 0, bss_start_ = 0, bss_end_ = 0;
  std::vector<std::pair<std::string, uint32_t>> common_addrs_;
  FirmwareImage image_;
};

// compiler-rt's soft-float helpers, which clang calls for float and double arithmetic,
// conversions and comparisons: __mulsf3, __adddf3, __fixsfsi, __floatsidf, __extendsfdf2,
// __eqsf2, __unorddf2... (the integer helpers end in "di3"/"si3" and are not matched).
bool is_soft_float_helper(const std::string& n) {
  if (n.rfind("__fix", 0) == 0 || n.rfind("__float", 0) == 0) return true;
  if (n.size() < 6 || n.compare(0, 2, "__") != 0 || !std::isdigit((unsigned char)n.back()))
    return false;
  const std::string kind = n.substr(n.size() - 3, 2);
  return kind == "sf" || kind == "df" || kind == "tf" || kind == "xf";
}

// Why a SHT_REL/SHT_RELA section cannot be used safely, or nothing.
std::optional<std::string> check_relocation_section(const llvm::object::ELFFile<ELFT>& ef,
                                                    llvm::ArrayRef<Shdr> sections,
                                                    const Shdr& sh) {
  const bool rela = sh.sh_type == llvm::ELF::SHT_RELA;
  const uint32_t entsize = rela ? sizeof(ELFT::Rela) : sizeof(ELFT::Rel);
  if (sh.sh_link >= sections.size() || sections[sh.sh_link].sh_type != llvm::ELF::SHT_SYMTAB)
    return "names section " + std::to_string(sh.sh_link) +
           " as its symbol table; it is not one (the object has " +
           std::to_string(sections.size()) + " sections)";
  if (sh.sh_entsize != entsize)
    return "has entries of " + std::to_string(sh.sh_entsize) + " bytes, not " +
           std::to_string(entsize);
  auto syms = ef.symbols(&sections[sh.sh_link]);
  if (!syms)
    return "has a bad symbol table: " + llvm::toString(syms.takeError());
  std::vector<uint32_t> indices;
  if (rela) {
    auto table = ef.relas(sh);
    if (!table)
      return "is unreadable: " + llvm::toString(table.takeError());
    for (const auto& r : *table) indices.push_back(r.getSymbol(false));
  } else {
    auto table = ef.rels(sh);
    if (!table)
      return "is unreadable: " + llvm::toString(table.takeError());
    for (const auto& r : *table) indices.push_back(r.getSymbol(false));
  }
  for (uint32_t si : indices)
    if (si >= syms->size())
      return "refers to symbol " + std::to_string(si) + "; the symbol table has " +
             std::to_string(syms->size());
  return std::nullopt;
}

void Linker::load(const Object& o, bool library) {
  InObject io;
  io.src = &o;
  io.is_library = library;
  llvm::MemoryBufferRef ref(o.data, o.name);
  auto elf = ElfObj::create(ref);
  if (!elf) {
    errors_.push_back(o.name + ": not a valid ELF32 big-endian object: " +
                      llvm::toString(elf.takeError()));
    return;
  }
  io.elf = std::make_unique<ElfObj>(std::move(*elf));
  const auto& ef = io.elf->getELFFile();
  const auto& eh = ef.getHeader();
  if (eh.e_machine != llvm::ELF::EM_LANAI) {
    errors_.push_back(o.name + ": ELF machine " + std::to_string(eh.e_machine) +
                      " is not Lanai (EM_LANAI = 244)");
    return;
  }
  if (eh.e_type != llvm::ELF::ET_REL) {
    errors_.push_back(o.name + ": not a relocatable object (ET_REL); link .o files, not "
                               "executables");
    return;
  }
  auto sections = ef.sections();
  if (!sections) {
    errors_.push_back(o.name + ": " + llvm::toString(sections.takeError()));
    return;
  }
  unsigned oi = objs_.size();
  io.section_map.assign(sections->size(), -1);
  const Shdr* symtab = nullptr;
  for (unsigned i = 0; i < sections->size(); ++i) {
    const Shdr& sh = (*sections)[i];
    if (sh.sh_type == llvm::ELF::SHT_SYMTAB)
      symtab = &sh;
    auto name = ef.getSectionName(sh);
    if (!name) {
      errors_.push_back(o.name + ": " + llvm::toString(name.takeError()));
      continue;
    }
    if (name->str() == kLayoutSection) {
      // Recognised by name whatever its flags: the host's view of the firmware, never
      // loaded into SRAM (merge_layouts reads it).
      io.layout_sections.push_back(i);
      continue;
    }
    Out out = classify(*name, sh);
    if (out == Out::None)
      continue;
    InSection s;
    s.obj = oi;
    s.index = i;
    s.name = name->str();
    s.out = out;
    s.align = std::max<uint32_t>(1, sh.sh_addralign);
    if (s.align & (s.align - 1)) {
      errors_.push_back(o.name + ": section " + s.name + " has alignment " +
                        std::to_string(s.align) + ", not a power of two");
      s.align = 1;
    }
    s.size = sh.sh_size;
    if (sh.sh_type != llvm::ELF::SHT_NOBITS) {
      auto data = ef.getSectionContents(sh);
      if (!data) {
        errors_.push_back(o.name + ": " + llvm::toString(data.takeError()));
        continue;
      }
      s.data = *data;
    }
    io.section_map[i] = secs_.size();
    secs_.push_back(std::move(s));
  }
  if (symtab) {
    auto syms = ef.symbols(symtab);
    auto strtab = ef.getStringTableForSymtab(*symtab);
    if (!syms || !strtab) {
      std::string why = !syms ? llvm::toString(syms.takeError()) : "";
      if (!strtab)
        why += (why.empty() ? "" : "; ") + llvm::toString(strtab.takeError());
      errors_.push_back(o.name + ": bad symbol table: " + why);
    } else {
      for (const auto& sym : *syms) {
        ObjSym os;
        auto name = sym.getName(*strtab);
        if (name)
          os.name = name->str();
        else
          llvm::consumeError(name.takeError());
        os.shndx = sym.st_shndx;
        os.in_layout = std::find(io.layout_sections.begin(), io.layout_sections.end(),
                                 os.shndx) != io.layout_sections.end();
        os.value = sym.st_value;
        os.size = sym.st_size;
        os.type = sym.getType();
        os.bind = sym.getBinding();
        if (os.type == llvm::ELF::STT_SECTION && os.shndx < sections->size()) {
          auto sn = ef.getSectionName((*sections)[os.shndx]);
          if (sn)
            os.name = sn->str();
          else
            llvm::consumeError(sn.takeError());
        }
        io.syms.push_back(std::move(os));
      }
    }
  }
  // Mark symbols used by relocations of allocated sections.
  for (unsigned i = 0; i < sections->size(); ++i) {
    const Shdr& sh = (*sections)[i];
    if (sh.sh_type != llvm::ELF::SHT_RELA && sh.sh_type != llvm::ELF::SHT_REL)
      continue;
    // LLVM's ELFObjectFile (which the DWARF line reader walks, debug relocations included)
    // aborts the process on a relocation section whose symbol table is not a section, whose
    // entries lie outside the file, or (unchecked) whose symbol indices are out of range, and
    // divides by its entry size: such an object is refused here, whatever it relocates.
    if (auto why = check_relocation_section(ef, *sections, sh)) {
      errors_.push_back(o.name + ": relocation section " + std::to_string(i) + " " + *why);
      continue;
    }
    if (sh.sh_info >= io.section_map.size() || io.section_map[sh.sh_info] < 0)
      continue;
    if (sh.sh_type == llvm::ELF::SHT_REL) {
      errors_.push_back(o.name + ": REL relocations (without addends) are not supported; "
                                 "Lanai objects use RELA");
      continue;
    }
    auto relas = ef.relas(sh);
    if (!relas) {
      errors_.push_back(o.name + ": " + llvm::toString(relas.takeError()));
      continue;
    }
    for (const auto& r : *relas) {
      uint32_t si = r.getSymbol(false);
      if (si < io.syms.size())
        io.syms[si].used = true;
    }
  }
  objs_.push_back(std::move(io));
}

void Linker::add_symbols(unsigned oi) {
  InObject& io = objs_[oi];
  io.included = true;
  order_.push_back(oi);
  for (unsigned i = 0; i < io.syms.size(); ++i) {
    const ObjSym& s = io.syms[i];
    if (s.bind == llvm::ELF::STB_LOCAL || s.name.empty() || s.in_layout)
      continue;
    if (s.type == llvm::ELF::STT_SECTION || s.type == llvm::ELF::STT_FILE)
      continue;
    GlobalSym& g = globals_[s.name];
    bool weak = s.bind == llvm::ELF::STB_WEAK;
    if (s.shndx == llvm::ELF::SHN_UNDEF) {
      if (!weak) {
        g.strong_ref = true;
        if (s.used && std::find(g.referrers.begin(), g.referrers.end(), oi) == g.referrers.end())
          g.referrers.push_back(oi);
      }
      if (s.used)
        g.used = true;
      continue;
    }
    if (s.shndx == llvm::ELF::SHN_COMMON) {
      if (g.defined && !g.common)
        continue; // a real definition wins over a common one
      if (!g.common) {
        g.common = true;
        g.defined = true;
        g.def_obj = oi;
        g.def_sym = i;
      }
      g.common_size = std::max(g.common_size, s.size);
      g.common_align = std::max<uint32_t>(g.common_align, std::max<uint32_t>(1, s.value));
      continue;
    }
    // A definition in a section (or absolute).
    if (!weak)
      g.definers.push_back(oi);
    if (!g.defined || g.common || (g.weak_def && !weak)) {
      g.defined = true;
      g.common = false;
      g.weak_def = weak;
      g.def_obj = oi;
      g.def_sym = i;
    }
  }
}

bool Linker::object_resolves_undefined(unsigned oi) const {
  for (const ObjSym& s : objs_[oi].syms) {
    if (s.bind == llvm::ELF::STB_LOCAL || s.shndx == llvm::ELF::SHN_UNDEF || s.name.empty() ||
        s.in_layout)
      continue;
    auto it = globals_.find(s.name);
    if (it != globals_.end() && !it->second.defined && it->second.strong_ref)
      return true;
  }
  return false;
}

void Linker::pull_libraries() {
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned oi = 0; oi < objs_.size(); ++oi) {
      if (objs_[oi].included || !objs_[oi].is_library)
        continue;
      if (object_resolves_undefined(oi)) {
        add_symbols(oi);
        changed = true;
      }
    }
  }
}

void Linker::check_symbols() {
  // The linker's own symbols exist in every image, unless an object defines them.
  for (const char* name : kLinkerSymbols) {
    GlobalSym& g = globals_[name];
    if (!g.defined) {
      g.defined = true;
      g.linker_defined = true;
    }
  }
  std::string soft_float; // the float helpers referenced, for one explanation below
  for (auto& [name, g] : globals_) {
    if (!g.defined && !g.referrers.empty() && is_soft_float_helper(name))
      soft_float += (soft_float.empty() ? "" : ", ") + name;
    if (g.definers.size() > 1) {
      std::string msg = "duplicate symbol: " + name + " (defined in ";
      for (size_t i = 0; i < g.definers.size(); ++i)
        msg += (i ? ", " : "") + objs_[g.definers[i]].src->name;
      errors_.push_back(msg + ")");
    }
    if (!g.defined && !g.referrers.empty()) {
      std::string msg = "undefined symbol: " + name + " (referenced by ";
      for (size_t i = 0; i < g.referrers.size(); ++i)
        msg += (i ? ", " : "") + objs_[g.referrers[i]].src->name;
      errors_.push_back(msg + ")");
    }
  }
  if (!soft_float.empty())
    errors_.push_back("floating point is not available: " + soft_float +
                      (soft_float.find(',') == std::string::npos ? " is" : " are") +
                      " the compiler's soft-float helper" +
                      (soft_float.find(',') == std::string::npos ? "" : "s") +
                      " for float/double arithmetic; the Lanai has no floating-point unit and "
                      "lanaikit's runtime provides no soft-float library: use integers or fixed "
                      "point (docs/abi.md, \"Runtime library\")");
  auto start = globals_.find("_start");
  if (start == globals_.end() || !start->second.defined || start->second.linker_defined) {
    errors_.push_back("undefined symbol: _start (the entry point, placed at address 0 as the "
                      "reset vector; link a startup object or define a global _start)");
  }
}

void Linker::layout() {
  // The section holding _start goes first.
  int first = -1;
  auto start = globals_.find("_start");
  if (start != globals_.end() && start->second.defined && !start->second.common &&
      !start->second.linker_defined) {
    const InObject& io = objs_[start->second.def_obj];
    const ObjSym& s = io.syms[start->second.def_sym];
    if (s.shndx < io.section_map.size() && io.section_map[s.shndx] >= 0) {
      first = io.section_map[s.shndx];
      if (secs_[first].out != Out::Text)
        errors_.push_back(io.src->name + ": _start is in section " + secs_[first].name +
                          ", not in code");
      else if (s.value != 0)
        errors_.push_back(io.src->name + ": _start is at offset " + hex(s.value) +
                          " of its section " + secs_[first].name +
                          "; it must be at offset 0 (the reset vector is address 0)");
    } else {
      errors_.push_back(io.src->name + ": _start is not defined in a section");
    }
  }

  uint32_t cursor = 0;
  bool overflow = false;
  auto place = [&](InSection& s) {
    uint64_t at = align_up(cursor, s.align);
    if (at + s.size > 0xFFFFFFFFull) {
      overflow = true;
      return;
    }
    s.addr = at;
    cursor = at + s.size;
  };
  auto place_class = [&](Out out) {
    for (unsigned oi : order_) {
      for (int si : objs_[oi].section_map) {
        if (si < 0 || si == first || secs_[si].out != out)
          continue;
        place(secs_[si]);
      }
    }
  };
  text_start_ = 0;
  if (first >= 0)
    place(secs_[first]);
  place_class(Out::Text);
  text_end_ = cursor;
  ro_start_ = cursor;
  place_class(Out::RoData);
  ro_end_ = cursor;
  data_start_ = cursor;
  place_class(Out::Data);
  data_end_ = cursor;
  cursor = align_up(cursor, 4);
  bss_start_ = cursor;
  place_class(Out::Bss);
  for (auto& [name, g] : globals_) {
    if (!g.common || !g.defined)
      continue;
    cursor = align_up(cursor, g.common_align);
    g.addr = cursor;
    common_addrs_.emplace_back(name, cursor);
    cursor += g.common_size;
  }
  cursor = align_up(cursor, 4);
  bss_end_ = cursor;
  if (overflow)
    errors_.push_back("the image does not fit in the 32-bit address space");
  // Tighten the starts of the classes to their first section, so that __data_start is the
  // address of the first .data byte even when .data is more aligned than the cursor was.
  auto first_addr = [&](Out out, uint32_t fallback) {
    uint32_t best = fallback;
    bool any = false;
    for (const InSection& s : secs_)
      if (objs_[s.obj].included && s.out == out && (!any || s.addr < best)) {
        best = s.addr;
        any = true;
      }
    return best;
  };
  ro_start_ = first_addr(Out::RoData, ro_start_);
  data_start_ = first_addr(Out::Data, data_start_);

  if (bss_end_ > opt_.sram_size) {
    errors_.push_back("the image needs " + std::to_string(bss_end_) + " bytes (text " +
                      std::to_string(text_end_) + ", rodata " +
                      std::to_string(ro_end_ - ro_start_) + ", data " +
                      std::to_string(data_end_ - data_start_) + ", bss " +
                      std::to_string(bss_end_ - bss_start_) + ") but SRAM is " +
                      std::to_string(opt_.sram_size) + " bytes: overflow by " +
                      std::to_string(bss_end_ - opt_.sram_size) + " bytes");
  }
}

void Linker::resolve_addresses() {
  std::map<std::string, uint32_t> linker_values = {
      {"__text_end", text_end_}, {"__data_start", data_start_}, {"__bss_start", bss_start_},
      {"__bss_end", bss_end_},   {"_end", bss_end_},
  };
  auto local_addr = [&](unsigned oi, const ObjSym& s) -> uint32_t {
    const InObject& io = objs_[oi];
    if (s.shndx == llvm::ELF::SHN_ABS)
      return s.value;
    if (s.shndx < io.section_map.size() && io.section_map[s.shndx] >= 0)
      return secs_[io.section_map[s.shndx]].addr + s.value;
    return 0;
  };
  // Globals first.
  for (auto& [name, g] : globals_) {
    if (!g.defined)
      continue;
    if (g.linker_defined)
      g.addr = linker_values[name];
    else if (!g.common)
      g.addr = local_addr(g.def_obj, objs_[g.def_obj].syms[g.def_sym]);
  }
  for (unsigned oi : order_) {
    InObject& io = objs_[oi];
    for (ObjSym& s : io.syms) {
      if (s.in_layout)
        continue; // never resolved: not in SRAM
      if (s.bind != llvm::ELF::STB_LOCAL && !s.name.empty() &&
          s.type != llvm::ELF::STT_SECTION && s.type != llvm::ELF::STT_FILE) {
        auto it = globals_.find(s.name);
        s.resolved = it != globals_.end() && it->second.defined;
        s.addr = s.resolved ? it->second.addr : 0; // undefined weak: 0
        if (!s.resolved && s.bind == llvm::ELF::STB_WEAK)
          s.resolved = true;
        continue;
      }
      if (s.shndx == llvm::ELF::SHN_UNDEF)
        continue;
      if (s.shndx == llvm::ELF::SHN_COMMON) {
        // A local common symbol (.lcomm lowers to bss, but be safe): give it bss space
        // is not possible after layout; treat as an error.
        errors_.push_back(io.src->name + ": local common symbol " + s.name +
                          " is not supported");
        continue;
      }
      s.addr = local_addr(oi, s);
      s.resolved = true;
    }
  }
}

std::string Linker::describe_place(const InSection& s, uint32_t off) const {
  return s.name + "+" + hex(off) + " (address " + hex(s.addr + off) + ")";
}

std::string Linker::sym_display(unsigned oi, uint32_t symidx) const {
  const InObject& io = objs_[oi];
  if (symidx == 0 || symidx >= io.syms.size())
    return "<no symbol>";
  const ObjSym& s = io.syms[symidx];
  if (s.type == llvm::ELF::STT_SECTION)
    return "section " + s.name;
  return s.name;
}

void Linker::relocate() {
  contents_.resize(secs_.size());
  for (size_t i = 0; i < secs_.size(); ++i)
    if (objs_[secs_[i].obj].included)
      contents_[i].assign(secs_[i].data.begin(), secs_[i].data.end());

  for (unsigned oi : order_) {
    InObject& io = objs_[oi];
    const auto& ef = io.elf->getELFFile();
    auto sections = ef.sections();
    if (!sections) {
      llvm::consumeError(sections.takeError());
      continue;
    }
    for (const Shdr& sh : *sections) {
      if (sh.sh_type != llvm::ELF::SHT_RELA)
        continue;
      if (sh.sh_info >= io.section_map.size() || io.section_map[sh.sh_info] < 0)
        continue; // relocations of debug info and other non-allocated sections
      unsigned target = io.section_map[sh.sh_info];
      InSection& sec = secs_[target];
      std::vector<uint8_t>& bytes = contents_[target];
      auto relas = ef.relas(sh);
      if (!relas) {
        llvm::consumeError(relas.takeError());
        continue;
      }
      for (const auto& r : *relas) {
        uint32_t type = r.getType(false);
        uint32_t symidx = r.getSymbol(false);
        uint32_t off = r.r_offset;
        if (type == llvm::ELF::R_LANAI_NONE)
          continue;
        auto where = [&] {
          return io.src->name + ": " + reloc_name(type) + " against " + sym_display(oi, symidx) +
                 " at " + describe_place(sec, off);
        };
        if (sec.data.empty() || off > bytes.size() || bytes.size() - off < 4) {
          errors_.push_back(where() + ": outside the section's contents");
          continue;
        }
        uint32_t S = 0;
        if (symidx != 0) {
          if (symidx >= io.syms.size()) {
            errors_.push_back(where() + ": bad symbol index");
            continue;
          }
          const ObjSym& s = io.syms[symidx];
          if (s.in_layout) {
            errors_.push_back(where() + ": the symbol is in " + std::string(kLayoutSection) +
                              ", which is not loaded into SRAM");
            continue;
          }
          if (!s.resolved)
            continue; // reported as an undefined symbol
          S = s.addr;
        }
        // Address arithmetic is modulo 2^32: negative addends and offsets from %r0 that
        // reach the top of the address space (the I/O words) wrap.
        uint32_t V = S + static_cast<uint32_t>(r.r_addend);
        uint8_t* p = bytes.data() + off;
        uint32_t word = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
                        (uint32_t(p[2]) << 8) | uint32_t(p[3]);
        switch (type) {
        case llvm::ELF::R_LANAI_32:
          word = V;
          break;
        case llvm::ELF::R_LANAI_HI16:
          word = (word & 0xFFFF0000u) | (V >> 16);
          break;
        case llvm::ELF::R_LANAI_LO16:
          word = (word & 0xFFFF0000u) | (V & 0xFFFFu);
          break;
        case llvm::ELF::R_LANAI_21:
        case llvm::ELF::R_LANAI_21_F: {
          // SLS/SLI: a zero-extended 21-bit address, bits 20..16 in word bits 22..18 and
          // bits 15..0 in word bits 15..0. The _F form leaves word bits 1..0 alone.
          if (V > 0x1FFFFFu) {
            errors_.push_back(where() + ": value " + hex(V) +
                              " does not fit in the 21-bit unsigned address field "
                              "(0..0x1fffff)");
            continue;
          }
          uint32_t field = ((V >> 16) & 0x1Fu) << 18 | (V & 0xFFFFu);
          uint32_t mask = 0x007CFFFFu;
          if (type == llvm::ELF::R_LANAI_21_F)
            mask &= ~3u;
          word = (word & ~mask) | (field & mask);
          break;
        }
        case llvm::ELF::R_LANAI_25: {
          // BR: an absolute word-aligned target in bits 24..2; bits 1..0 of the word are
          // part of the condition encoding and stay.
          if (V > 0x1FFFFFFu) {
            errors_.push_back(where() + ": branch target " + hex(V) +
                              " does not fit in the 25-bit absolute branch field "
                              "(0..0x1fffffc)");
            continue;
          }
          if (V & 3u) {
            errors_.push_back(where() + ": branch target " + hex(V) + " is not word aligned");
            continue;
          }
          word = (word & ~0x01FFFFFCu) | (V & 0x01FFFFFCu);
          break;
        }
        default:
          errors_.push_back(where() + ": unsupported relocation type " + std::to_string(type));
          continue;
        }
        p[0] = word >> 24;
        p[1] = word >> 16;
        p[2] = word >> 8;
        p[3] = word;
      }
    }
  }
}

void Linker::merge_layouts() {
  // One merger over every object in link order; a conflict names the object whose
  // definition was kept and the one that disagrees.
  LayoutMerger merger;
  for (unsigned oi : order_) {
    InObject& io = objs_[oi];
    const auto& ef = io.elf->getELFFile();
    for (unsigned index : io.layout_sections) {
      auto sh = ef.getSection(index);
      if (!sh) {
        errors_.push_back(io.src->name + ": " + llvm::toString(sh.takeError()));
        continue;
      }
      if ((*sh)->sh_type == llvm::ELF::SHT_NOBITS) {
        errors_.push_back(io.src->name + ": " + std::string(kLayoutSection) +
                          " has no contents (SHT_NOBITS)");
        continue;
      }
      auto data = ef.getSectionContents(**sh);
      if (!data) {
        errors_.push_back(io.src->name + ": " + llvm::toString(data.takeError()));
        continue;
      }
      LayoutTable table;
      try {
        table = decode_layout_section(data->data(), data->size());
      } catch (const std::runtime_error& e) {
        errors_.push_back(io.src->name + ": " + std::string(kLayoutSection) + ": " + e.what());
        continue;
      }
      for (const LayoutMerger::Conflict& c : merger.add(table, oi))
        errors_.push_back(objs_[c.first_input].src->name + " and " + io.src->name + ": " +
                          c.message);
    }
  }
  image_.layout_table = std::move(merger).finish();
}

// A pinned global has no storage of its own (its name is an absolute symbol), so one that
// lies inside the image's code or data would silently alias it.
void Linker::check_pinned() {
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> parts[] = {
      {".text", {text_start_, text_end_}},
      {".rodata", {ro_start_, ro_end_}},
      {".data", {data_start_, data_end_}},
      {".bss", {bss_start_, bss_end_}}};
  for (const GlobalLayout& g : image_.layout_table.globals) {
    if (!g.pinned_address || g.size == 0)
      continue;
    const uint64_t begin = *g.pinned_address, end = begin + g.size;
    for (const auto& [name, range] : parts)
      if (range.first < range.second && begin < range.second && range.first < end) {
        errors_.push_back("pinned global " + g.name + " [" + hex(begin) + ", " + hex(end) +
                          ") lies on top of the image's " + name + " [" + hex(range.first) +
                          ", " + hex(range.second) + "); pin it at or above _end (" +
                          hex(bss_end_) + ") or make the image smaller");
        break;
      }
  }
}

void Linker::build_image() {
  FirmwareImage& img = image_;
  auto make_segment = [&](Out out, uint32_t start, uint32_t end) {
    if (end <= start)
      return;
    Segment seg;
    seg.name = out_name(out);
    seg.address = start;
    seg.mem_size = end - start;
    seg.exec = out == Out::Text;
    seg.write = out == Out::Data || out == Out::Bss;
    if (out != Out::Bss || opt_.zero_bss) {
      seg.bytes.assign(seg.mem_size, 0);
      if (out != Out::Bss)
        for (size_t i = 0; i < secs_.size(); ++i) {
          const InSection& s = secs_[i];
          if (!objs_[s.obj].included || s.out != out)
            continue;
          std::copy(contents_[i].begin(), contents_[i].end(),
                    seg.bytes.begin() + (s.addr - start));
        }
    }
    img.segments.push_back(std::move(seg));
  };
  make_segment(Out::Text, text_start_, text_end_);
  make_segment(Out::RoData, ro_start_, ro_end_);
  make_segment(Out::Data, data_start_, data_end_);
  make_segment(Out::Bss, bss_start_, bss_end_);

  auto kind_of = [](uint8_t type) {
    switch (type) {
    case llvm::ELF::STT_FUNC: return SymbolKind::Function;
    case llvm::ELF::STT_OBJECT:
    case llvm::ELF::STT_COMMON:
    case llvm::ELF::STT_TLS: return SymbolKind::Object;
    default: return SymbolKind::NoType;
    }
  };
  // Locals of every included object, then the winning definition of every global.
  for (unsigned oi : order_) {
    const InObject& io = objs_[oi];
    for (const ObjSym& s : io.syms) {
      if (s.bind != llvm::ELF::STB_LOCAL || s.name.empty() || !s.resolved)
        continue;
      if (s.type == llvm::ELF::STT_SECTION || s.type == llvm::ELF::STT_FILE)
        continue;
      if (llvm::StringRef(s.name).startswith(".L"))
        continue; // assembler temporaries
      img.symbols.push_back({s.name, s.addr, s.size, kind_of(s.type), SymbolBinding::Local});
    }
  }
  for (const auto& [name, g] : globals_) {
    if (!g.defined)
      continue;
    if (g.linker_defined) {
      img.symbols.push_back({name, g.addr, 0, SymbolKind::NoType, SymbolBinding::Global});
      continue;
    }
    const ObjSym& s = objs_[g.def_obj].syms[g.def_sym];
    Symbol sym{name, g.addr, g.common ? g.common_size : s.size,
               g.common ? SymbolKind::Object : kind_of(s.type),
               s.bind == llvm::ELF::STB_WEAK ? SymbolBinding::Weak : SymbolBinding::Global};
    img.symbols.push_back(std::move(sym));
  }
  std::stable_sort(img.symbols.begin(), img.symbols.end(), [](const Symbol& a, const Symbol& b) {
    return a.address != b.address ? a.address < b.address : a.name < b.name;
  });
  img.entry = globals_.count("_start") ? globals_["_start"].addr : 0;

  // Line tables.
  detail::FileTable files;
  for (unsigned oi : order_) {
    const InObject& io = objs_[oi];
    auto section_address = [&](uint64_t index) -> std::optional<uint32_t> {
      if (index < io.section_map.size() && io.section_map[index] >= 0)
        return secs_[io.section_map[index]].addr;
      return std::nullopt;
    };
    detail::read_line_tables(*io.elf, section_address, files, img.lines, warnings_);
  }
  img.files = std::move(files.files);
  std::stable_sort(img.lines.begin(), img.lines.end(), [](const LineRow& a, const LineRow& b) {
    if (a.address != b.address)
      return a.address < b.address;
    return a.end_sequence && !b.end_sequence; // a range's end before the next one's start
  });
}

llvm::Expected<FirmwareImage> Linker::run() {
  if (in_.startup)
    load(*in_.startup, false);
  for (const Object& o : in_.objects)
    load(o, false);
  for (const Object& o : in_.libraries)
    load(o, true);
  if (!errors_.empty())
    return make_error(llvm::join(errors_, "\n"));
  for (unsigned oi = 0; oi < objs_.size(); ++oi)
    if (!objs_[oi].is_library)
      add_symbols(oi);
  pull_libraries();
  check_symbols();
  layout();
  if (!errors_.empty())
    return make_error(llvm::join(errors_, "\n"));
  resolve_addresses();
  relocate();
  merge_layouts();
  check_pinned();
  if (!errors_.empty())
    return make_error(llvm::join(errors_, "\n"));
  build_image();
  // The image reader (and every loader) refuses an image with nothing to load, which would
  // run whatever SRAM held: refuse to make one (link_fuzz found the linker did).
  if (image_.segments.empty())
    return make_error("nothing to load: the inputs have no code or data (" +
                      std::to_string(in_.objects.size()) + " object(s)" +
                      (in_.startup ? std::string(" and a startup object") : std::string(", no startup object")) +
                      ")");
  if (opt_.warnings)
    opt_.warnings->insert(opt_.warnings->end(), warnings_.begin(), warnings_.end());
  return std::move(image_);
}

} // namespace

llvm::Expected<FirmwareImage> link(const LinkInputs& inputs, const LinkOptions& options) {
  Linker l(inputs, options);
  return l.run();
}

} // namespace lanaikit::assembler
