#include "assembler/elf.h"
#include "base/bytes.h"
#include "base/hex.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "assembler/internal.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/MemoryBuffer.h"

namespace lanaikit::assembler {

namespace {

using detail::make_error;
namespace E = llvm::ELF;

constexpr char kLinesMagic[4] = {'L', 'K', 'L', 'N'};
constexpr uint32_t kLinesVersion = 1;

class Writer {
public:
  std::vector<uint8_t> buf;
  size_t size() const { return buf.size(); }
  void u8(uint8_t v) { buf.push_back(v); }
  void u16(uint16_t v) {
    u8(v >> 8);
    u8(v);
  }
  void u32(uint32_t v) {
    u16(v >> 16);
    u16(v);
  }
  void bytes(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    buf.insert(buf.end(), b, b + n);
  }
  void pad_to(size_t off) {
    if (buf.size() < off)
      buf.resize(off, 0);
  }
  void put32(size_t at, uint32_t v) {
    buf[at] = v >> 24;
    buf[at + 1] = v >> 16;
    buf[at + 2] = v >> 8;
    buf[at + 3] = v;
  }
};

struct StrTab {
  std::string data = std::string(1, '\0');
  uint32_t add(const std::string& s) {
    if (s.empty())
      return 0;
    uint32_t off = data.size();
    data += s;
    data.push_back('\0');
    return off;
  }
};

struct SecHdr {
  uint32_t name = 0, type = 0, flags = 0, addr = 0, offset = 0, size = 0, link = 0, info = 0,
           align = 0, entsize = 0;
};

uint8_t elf_type(SymbolKind k) {
  switch (k) {
  case SymbolKind::Function: return E::STT_FUNC;
  case SymbolKind::Object: return E::STT_OBJECT;
  case SymbolKind::NoType: break;
  }
  return E::STT_NOTYPE;
}

uint8_t elf_bind(SymbolBinding b) {
  switch (b) {
  case SymbolBinding::Local: return E::STB_LOCAL;
  case SymbolBinding::Weak: return E::STB_WEAK;
  case SymbolBinding::Global: break;
  }
  return E::STB_GLOBAL;
}

std::vector<uint8_t> encode_lines(const FirmwareImage& img) {
  Writer w;
  w.bytes(kLinesMagic, 4);
  w.u32(kLinesVersion);
  w.u32(img.files.size());
  w.u32(img.lines.size());
  for (const std::string& f : img.files) {
    w.u32(f.size());
    w.bytes(f.data(), f.size());
  }
  for (const LineRow& r : img.lines) {
    w.u32(r.address);
    w.u32(r.file);
    w.u32(r.line);
    w.u32(r.column);
    w.u32(r.end_sequence ? 1 : 0);
  }
  return std::move(w.buf);
}

} // namespace

std::vector<uint8_t> elf_bytes(const FirmwareImage& img) {
  Writer w;
  const size_t ehsize = 52, phentsize = 32, shentsize = 40;
  const size_t nseg = img.segments.size();

  // Header, patched at the end for the section header offset.
  w.u8(0x7f);
  w.bytes("ELF", 3);
  w.u8(E::ELFCLASS32);
  w.u8(E::ELFDATA2MSB);
  w.u8(E::EV_CURRENT);
  w.u8(E::ELFOSABI_NONE);
  w.pad_to(16);
  w.u16(E::ET_EXEC);
  w.u16(E::EM_LANAI);
  w.u32(E::EV_CURRENT);
  w.u32(img.entry);
  w.u32(nseg ? ehsize : 0); // e_phoff
  size_t shoff_at = w.size();
  w.u32(0); // e_shoff, patched
  w.u32(0); // e_flags
  w.u16(ehsize);
  w.u16(phentsize);
  w.u16(nseg);
  w.u16(shentsize);
  size_t shnum_at = w.size();
  w.u16(0); // e_shnum, patched
  w.u16(0); // e_shstrndx, patched

  // Program headers, patched once the data offsets are known.
  size_t phdr_at = w.size();
  w.pad_to(phdr_at + nseg * phentsize);

  StrTab shstr;
  std::vector<SecHdr> shdrs(1); // null section
  std::vector<size_t> seg_offset(nseg);
  for (size_t i = 0; i < nseg; ++i) {
    const Segment& s = img.segments[i];
    // File offset congruent to the address modulo 4 (p_align).
    size_t off = (w.size() + 3) & ~size_t(3);
    off += s.address & 3;
    w.pad_to(off);
    seg_offset[i] = off;
    w.bytes(s.bytes.data(), s.bytes.size());
    SecHdr sh;
    sh.name = shstr.add(s.name);
    sh.type = s.bytes.empty() && s.mem_size ? E::SHT_NOBITS : E::SHT_PROGBITS;
    sh.flags = E::SHF_ALLOC | (s.exec ? uint32_t(E::SHF_EXECINSTR) : 0u) |
               (s.write ? uint32_t(E::SHF_WRITE) : 0u);
    sh.addr = s.address;
    sh.offset = off;
    sh.size = s.bytes.empty() ? s.mem_size : s.bytes.size();
    sh.align = 4;
    shdrs.push_back(sh);
  }
  for (size_t i = 0; i < nseg; ++i) {
    const Segment& s = img.segments[i];
    size_t at = phdr_at + i * phentsize;
    w.put32(at + 0, E::PT_LOAD);
    w.put32(at + 4, seg_offset[i]);
    w.put32(at + 8, s.address);  // p_vaddr
    w.put32(at + 12, s.address); // p_paddr
    w.put32(at + 16, s.bytes.size());
    w.put32(at + 20, s.mem_size);
    w.put32(at + 24, E::PF_R | (s.exec ? uint32_t(E::PF_X) : 0u) | (s.write ? uint32_t(E::PF_W) : 0u));
    w.put32(at + 28, 4);
  }

  // Symbol table: locals first (ELF requires it), then globals/weaks.
  StrTab strtab;
  Writer symw;
  auto section_of = [&](uint32_t addr) -> uint16_t {
    for (size_t i = 0; i < nseg; ++i)
      if (addr >= img.segments[i].address && addr - img.segments[i].address < img.segments[i].mem_size)
        return i + 1;
    return E::SHN_ABS;
  };
  for (int k = 0; k < 16; ++k)
    symw.u8(0);
  uint32_t nlocal = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (const Symbol& s : img.symbols) {
      bool local = s.binding == SymbolBinding::Local;
      if (local != (pass == 0))
        continue;
      symw.u32(strtab.add(s.name));
      symw.u32(s.address);
      symw.u32(s.size);
      symw.u8((elf_bind(s.binding) << 4) | elf_type(s.kind));
      symw.u8(E::STV_DEFAULT);
      symw.u16(section_of(s.address));
      if (local)
        ++nlocal;
    }
  }
  size_t symtab_index = shdrs.size();
  {
    size_t off = (w.size() + 3) & ~size_t(3);
    w.pad_to(off);
    w.bytes(symw.buf.data(), symw.buf.size());
    SecHdr sh;
    sh.name = shstr.add(".symtab");
    sh.type = E::SHT_SYMTAB;
    sh.offset = off;
    sh.size = symw.buf.size();
    sh.link = symtab_index + 1; // .strtab follows
    sh.info = nlocal;
    sh.align = 4;
    sh.entsize = 16;
    shdrs.push_back(sh);
  }
  {
    SecHdr sh;
    sh.name = shstr.add(".strtab");
    sh.type = E::SHT_STRTAB;
    sh.offset = w.size();
    sh.size = strtab.data.size();
    sh.align = 1;
    w.bytes(strtab.data.data(), strtab.data.size());
    shdrs.push_back(sh);
  }
  if (!img.lines.empty() || !img.files.empty()) {
    std::vector<uint8_t> lines = encode_lines(img);
    size_t off = (w.size() + 3) & ~size_t(3);
    w.pad_to(off);
    SecHdr sh;
    sh.name = shstr.add(kLinesSection);
    sh.type = E::SHT_PROGBITS;
    sh.offset = off;
    sh.size = lines.size();
    sh.align = 4;
    w.bytes(lines.data(), lines.size());
    shdrs.push_back(sh);
  }
  if (!img.layout_table.empty()) {
    std::vector<uint8_t> layout = encode_layout(img.layout_table);
    size_t off = (w.size() + 3) & ~size_t(3);
    w.pad_to(off);
    SecHdr sh;
    sh.name = shstr.add(std::string(kLayoutSection));
    sh.type = E::SHT_PROGBITS;
    sh.offset = off;
    sh.size = layout.size();
    sh.align = 4;
    w.bytes(layout.data(), layout.size());
    shdrs.push_back(sh);
  }
  size_t shstrndx = shdrs.size();
  {
    SecHdr sh;
    sh.name = shstr.add(".shstrtab");
    sh.type = E::SHT_STRTAB;
    sh.offset = w.size();
    sh.size = shstr.data.size();
    sh.align = 1;
    w.bytes(shstr.data.data(), shstr.data.size());
    shdrs.push_back(sh);
  }
  size_t shoff = (w.size() + 3) & ~size_t(3);
  w.pad_to(shoff);
  for (const SecHdr& sh : shdrs) {
    w.u32(sh.name);
    w.u32(sh.type);
    w.u32(sh.flags);
    w.u32(sh.addr);
    w.u32(sh.offset);
    w.u32(sh.size);
    w.u32(sh.link);
    w.u32(sh.info);
    w.u32(sh.align);
    w.u32(sh.entsize);
  }
  w.put32(shoff_at, shoff);
  w.buf[shnum_at] = shdrs.size() >> 8;
  w.buf[shnum_at + 1] = shdrs.size();
  w.buf[shnum_at + 2] = shstrndx >> 8;
  w.buf[shnum_at + 3] = shstrndx;
  return std::move(w.buf);
}

llvm::Error write_elf(const FirmwareImage& image, const std::string& path) {
  std::vector<uint8_t> bytes = elf_bytes(image);
  auto out = llvm::FileOutputBuffer::create(path, bytes.size());
  if (!out)
    return make_error("cannot write " + path + ": " + llvm::toString(out.takeError()));
  std::copy(bytes.begin(), bytes.end(), (*out)->getBufferStart());
  if (auto e = (*out)->commit())
    return make_error("cannot write " + path + ": " + llvm::toString(std::move(e)));
  return llvm::Error::success();
}

namespace {


llvm::Error decode_lines(llvm::ArrayRef<uint8_t> d, FirmwareImage& img, const std::string& name) {
  auto bad = [&] { return make_error(name + ": malformed " + kLinesSection + " section"); };
  size_t pos = 0;
  auto get = [&](uint32_t& v) {
    if (d.size() - pos < 4)
      return false;
    v = load_be32(d.data() + pos);
    pos += 4;
    return true;
  };
  if (d.size() < 16 || !std::equal(kLinesMagic, kLinesMagic + 4, d.begin()))
    return bad();
  pos = 4;
  uint32_t version, nfiles, nrows;
  if (!get(version) || !get(nfiles) || !get(nrows))
    return bad();
  if (version != kLinesVersion)
    return make_error(name + ": " + kLinesSection + " version " + std::to_string(version) +
                      " is not supported (expected " + std::to_string(kLinesVersion) + ")");
  for (uint32_t i = 0; i < nfiles; ++i) {
    uint32_t len;
    if (!get(len) || d.size() - pos < len)
      return bad();
    img.files.emplace_back(reinterpret_cast<const char*>(d.data() + pos), len);
    pos += len;
  }
  if ((d.size() - pos) / 20 < nrows)
    return bad();
  img.lines.reserve(nrows);
  for (uint32_t i = 0; i < nrows; ++i) {
    LineRow r;
    uint32_t flags = 0;
    get(r.address);
    get(r.file);
    get(r.line);
    get(r.column);
    get(flags);
    r.end_sequence = flags & 1;
    if (!r.end_sequence && r.file >= img.files.size())
      return bad();
    img.lines.push_back(r);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<FirmwareImage> parse_elf(std::string_view data, std::string_view name_sv) {
  std::string name(name_sv);
  const auto* b = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < 4 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F')
    return make_error(name + ": not an ELF file (expected a Lanai firmware image built by "
                             "`lanaikit build`)");
  if (data.size() < 52)
    return make_error(name + ": truncated ELF header");
  if (b[E::EI_CLASS] != E::ELFCLASS32)
    return make_error(name + ": a 64-bit ELF file, not a Lanai (ELF32) firmware image");
  if (b[E::EI_DATA] != E::ELFDATA2MSB)
    return make_error(name + ": a little-endian ELF file, not a Lanai (big-endian) firmware "
                             "image");
  unsigned machine = (b[18] << 8) | b[19];
  if (machine != E::EM_LANAI)
    return make_error(name + ": ELF file for machine " + std::to_string(machine) +
                      ", not Lanai (EM_LANAI = 244)");
  unsigned type = (b[16] << 8) | b[17];
  if (type == E::ET_REL)
    return make_error(name + ": a relocatable object, not a linked firmware image (link it "
                             "with `lanaikit build`)");
  if (type != E::ET_EXEC)
    return make_error(name + ": ELF type " + std::to_string(type) +
                      " is not an executable (ET_EXEC)");

  auto ef = llvm::object::ELFFile<llvm::object::ELF32BE>::create(
      llvm::StringRef(data.data(), data.size()));
  if (!ef)
    return make_error(name + ": " + llvm::toString(ef.takeError()));
  FirmwareImage img;
  img.entry = ef->getHeader().e_entry;

  auto sections = ef->sections();
  if (!sections)
    return make_error(name + ": " + llvm::toString(sections.takeError()));
  auto phdrs = ef->program_headers();
  if (!phdrs)
    return make_error(name + ": " + llvm::toString(phdrs.takeError()));
  for (const auto& ph : *phdrs) {
    if (ph.p_type != E::PT_LOAD || ph.p_memsz == 0)
      continue;
    if (ph.p_filesz > ph.p_memsz || ph.p_offset > data.size() ||
        data.size() - ph.p_offset < ph.p_filesz)
      return make_error(name + ": segment at " + std::to_string(ph.p_vaddr) +
                        " lies outside the file");
    Segment seg;
    seg.address = ph.p_vaddr;
    seg.mem_size = ph.p_memsz;
    seg.bytes.assign(b + ph.p_offset, b + ph.p_offset + ph.p_filesz);
    seg.exec = ph.p_flags & E::PF_X;
    seg.write = ph.p_flags & E::PF_W;
    seg.name = "segment" + std::to_string(img.segments.size());
    for (const auto& sh : *sections) {
      if ((sh.sh_flags & E::SHF_ALLOC) && sh.sh_addr == ph.p_vaddr && sh.sh_size != 0) {
        auto sn = ef->getSectionName(sh);
        if (sn) {
          seg.name = sn->str();
          break;
        }
        llvm::consumeError(sn.takeError());
      }
    }
    img.segments.push_back(std::move(seg));
  }
  std::sort(img.segments.begin(), img.segments.end(),
            [](const Segment& a, const Segment& c) { return a.address < c.address; });
  // A loader would silently let the later segment win where two overlap, and an image with
  // nothing to load runs whatever SRAM held: both are malformed images, not programs.
  if (img.segments.empty())
    return make_error(name + ": nothing to load (no PT_LOAD segment with a size); not a "
                             "firmware image built by `lanaikit build`?");
  auto range = [](const Segment& s) {
    return s.name + " [" + hex32(s.address) + ", " + hex32(uint64_t(s.address) + s.mem_size) + ")";
  };
  for (size_t i = 0; i < img.segments.size(); ++i) {
    const Segment& s = img.segments[i];
    if (uint64_t(s.address) + s.mem_size > (uint64_t(1) << 32))
      return make_error(name + ": segment " + range(s) + " runs past the 32-bit address space");
    if (i > 0 && uint64_t(img.segments[i - 1].address) + img.segments[i - 1].mem_size > s.address)
      return make_error(name + ": segments overlap: " + range(img.segments[i - 1]) + " and " +
                        range(s));
  }

  for (const auto& sh : *sections) {
    if (sh.sh_type == E::SHT_SYMTAB) {
      auto syms = ef->symbols(&sh);
      auto strtab = ef->getStringTableForSymtab(sh);
      if (!syms || !strtab) {
        if (!syms)
          llvm::consumeError(syms.takeError());
        if (!strtab)
          llvm::consumeError(strtab.takeError());
        return make_error(name + ": malformed symbol table");
      }
      bool first = true;
      for (const auto& s : *syms) {
        if (first) {
          first = false;
          continue;
        }
        uint8_t t = s.getType();
        if (t == E::STT_SECTION || t == E::STT_FILE)
          continue;
        auto sn = s.getName(*strtab);
        if (!sn) {
          llvm::consumeError(sn.takeError());
          continue;
        }
        Symbol sym;
        sym.name = sn->str();
        sym.address = s.st_value;
        sym.size = s.st_size;
        sym.kind = t == E::STT_FUNC     ? SymbolKind::Function
                   : t == E::STT_OBJECT ? SymbolKind::Object
                                        : SymbolKind::NoType;
        uint8_t bind = s.getBinding();
        sym.binding = bind == E::STB_LOCAL  ? SymbolBinding::Local
                      : bind == E::STB_WEAK ? SymbolBinding::Weak
                                            : SymbolBinding::Global;
        img.symbols.push_back(std::move(sym));
      }
    } else if (auto sn = ef->getSectionName(sh); sn && *sn == kLinesSection) {
      auto contents = ef->getSectionContents(sh);
      if (!contents)
        return make_error(name + ": " + llvm::toString(contents.takeError()));
      if (auto e = decode_lines(*contents, img, name))
        return e;
    } else if (sn && sn->str() == kLayoutSection && !(sh.sh_flags & E::SHF_ALLOC)) {
      auto contents = ef->getSectionContents(sh);
      if (!contents)
        return make_error(name + ": " + llvm::toString(contents.takeError()));
      try {
        img.layout_table = decode_layout(contents->data(), contents->size());
      } catch (const std::runtime_error& e) {
        return make_error(name + ": " + std::string(kLayoutSection) + ": " + e.what());
      }
    } else if (!sn) {
      llvm::consumeError(sn.takeError());
    }
  }
  std::stable_sort(img.symbols.begin(), img.symbols.end(), [](const Symbol& a, const Symbol& c) {
    return a.address != c.address ? a.address < c.address : a.name < c.name;
  });
  return img;
}

llvm::Expected<FirmwareImage> read_elf(const std::string& path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return make_error("cannot read " + path + ": " + buf.getError().message());
  return parse_elf(std::string_view((*buf)->getBufferStart(), (*buf)->getBufferSize()), path);
}

} // namespace lanaikit::assembler
