// The driver: loads the file and its imports, runs sema, builds the layout table, generates
// IR, optimises and emits the object. See compile.h.
#include "assembler/fw/compile.h"

#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include "assembler/fw/ast_dump.h"
#include "assembler/fw/backend.h"
#include "assembler/fw/codegen.h"
#include "assembler/fw/diagnostics.h"
#include "assembler/fw/overrides.h"
#include "assembler/fw/parser.h"
#include "assembler/fw/sema.h"
#include "assembler/layout.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace lanaikit::fw {

namespace {

bool read_whole_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

std::string canonical(const std::string& path) {
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(path, real)) return std::string(real);
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, true);
  return std::string(abs);
}

// Loads a file's imports depth-first: each file once, cycles reported with their chain.
class Loader {
public:
  Loader(Module& m, Diagnostics& d, const CompileOptions& o) : m_(m), diag_(d), opt_(o) {}

  // `file` is already in the SourceManager; parses it and its imports.
  bool load(uint32_t file, const std::string& canon) {
    if (stack_.size() > 64) {
      diag_.error_plain("imports nested too deeply");
      return false;
    }
    auto ast = std::make_unique<FileAst>();
    if (!parse_file(m_.sources, file, diag_, *ast)) return false;
    FileAst* raw = ast.get();
    m_.files.push_back(std::move(ast));
    loaded_.push_back(canon);
    stack_.push_back(canon);
    bool ok = true;
    for (auto& item : raw->items) {
      if (item->kind != Item::Import) continue;
      ok &= import(*item, file);
    }
    stack_.pop_back();
    return ok;
  }

private:
  Module& m_;
  Diagnostics& diag_;
  const CompileOptions& opt_;
  std::vector<std::string> loaded_;
  std::vector<std::string> stack_;

  bool import(const Item& item, uint32_t from) {
    const std::string& rel = item.name;
    std::vector<std::string> candidates;
    if (llvm::sys::path::is_absolute(rel)) {
      candidates.push_back(rel);
    } else {
      llvm::SmallString<256> p(llvm::sys::path::parent_path(m_.sources.file(from).path));
      llvm::sys::path::append(p, rel);
      candidates.push_back(std::string(p));
      for (const std::string& dir : opt_.import_dirs) {
        llvm::SmallString<256> q(dir);
        llvm::sys::path::append(q, rel);
        candidates.push_back(std::string(q));
      }
    }
    std::string found;
    for (const std::string& c : candidates)
      if (llvm::sys::fs::is_regular_file(c)) {
        found = c;
        break;
      }
    if (found.empty()) {
      std::string where;
      for (const std::string& c : candidates) where += (where.empty() ? "" : ", ") + c;
      diag_.error(item.pos, "cannot find import '" + rel + "' (looked for " + where + ")");
      return false;
    }
    const std::string canon = canonical(found);
    for (size_t i = 0; i < stack_.size(); ++i)
      if (stack_[i] == canon) {
        std::string chain;
        for (size_t j = i; j < stack_.size(); ++j)
          chain += llvm::sys::path::filename(stack_[j]).str() + " -> ";
        chain += llvm::sys::path::filename(canon).str();
        diag_.error(item.pos, "import cycle: " + chain);
        return false;
      }
    for (const std::string& l : loaded_)
      if (l == canon) return true; // imported once
    std::string text;
    if (!read_whole_file(found, text)) {
      diag_.error(item.pos, "cannot read import '" + found + "'");
      return false;
    }
    uint32_t id = m_.sources.add(found, std::move(text));
    return load(id, canon);
  }
};

// An integer constant as the layout table carries it; nullopt for bool constants and for
// untyped ones outside [-2^63, 2^64) (sema evaluates those with 128 bits; 64 bits of two's
// complement cannot say which value was meant, and no host variable holds it).
std::optional<assembler::ConstantLayout> constant_layout(const Symbol& s) {
  if (s.type && !s.type->is_integral()) return std::nullopt; // bool, or an erroneous one
  assembler::ConstantLayout c;
  c.name = s.name;
  c.overridable = s.item && s.item->is_option;
  if (s.type) {
    // An enum-typed constant as its underlying integer (the variants say what it means).
    c.type = s.type->kind == Type::Enum ? s.type->en->underlying->spelling() : s.type->spelling();
    c.is_signed = s.type->is_signed;
  } else {
    if (s.value < -(Int(1) << 63) || s.value >= (Int(1) << 64)) return std::nullopt;
    c.type = "int";
    c.is_signed = s.value < 0;
  }
  c.value = uint64_t(s.value); // low 64 bits: two's complement, sign-extended
  return c;
}

// The module's layout table: every struct, every global, every integer constant, the
// handlers defined here.
assembler::LayoutTable layout_table(const Module& m, Diagnostics& diag) {
  assembler::LayoutTable t;
  for (const Symbol* s : m.decl_order) {
    if (s->kind == Symbol::StructSym) {
      assembler::StructLayout sl;
      sl.name = s->st->name;
      sl.size = s->st->size;
      sl.align = s->st->align;
      for (const FieldInfo& f : s->st->fields)
        sl.fields.push_back({f.name, f.offset, f.type->size, f.type->spelling()});
      t.structs.push_back(std::move(sl));
    } else if (s->kind == Symbol::EnumSym) {
      // Each variant as a constant "Enum.VARIANT" of the underlying type, so hosts and
      // scripts read values by name (image.constant("Mode.PARANOID")).
      const EnumInfo& en = *s->en;
      for (const EnumVariant& v : en.variants) {
        assembler::ConstantLayout c;
        c.name = en.name + "." + v.name;
        c.type = en.underlying ? en.underlying->spelling() : "u32";
        c.is_signed = en.underlying && en.underlying->is_signed;
        c.value = uint64_t(v.value);
        t.constants.push_back(std::move(c));
      }
    } else if (s->kind == Symbol::Global && s->is_const_data) {
      // A table is private read-only data of each object that uses it: nothing to export.
    } else if (s->kind == Symbol::Global) {
      assembler::GlobalLayout g;
      g.name = s->name;
      g.type = s->type->spelling();
      g.size = s->type->size;
      if (s->pinned) g.pinned_address = s->address;
      t.globals.push_back(std::move(g));
    } else if (s->kind == Symbol::Func && s->is_handler && s->defined_here) {
      t.handlers.push_back(s->name);
    } else if (s->kind == Symbol::Const) {
      if (auto c = constant_layout(*s))
        t.constants.push_back(std::move(*c));
      else if (!s->type && s->item)
        diag.warning(s->pos, "constant '" + s->name + "' = " + int_to_string(s->value) +
                                 " is outside the 64-bit range the layout table carries (" +
                                 "-2^63 to 2^64-1); hosts cannot read it from the image");
    }
  }
  return t;
}

CompileResult compile(std::string_view source, const std::string& filename,
                      const CompileOptions& options, Emit what) {
  CompileResult r;
  SourceManager sm;
  Diagnostics diag(sm);
  Module m(sm);
  const uint32_t root = sm.add(filename, std::string(source));
  Loader loader(m, diag, options);
  bool ok = loader.load(root, canonical(filename)) && diag.errors() == 0;
  if (ok) {
    for (auto& f : m.files)
      for (auto& item : f->items)
        if (item->kind == Item::Const) r.constants.push_back(item->name);
    ok = apply_overrides(m, options.overrides, diag);
  }
  if (ok && what == Emit::Ast) {
    r.text = dump_ast(m);
    r.ok = true;
    r.diagnostics = diag.text();
    return r;
  }
  if (ok) ok = analyze(m, diag, options.sram_size);
  if (!ok) {
    r.diagnostics = diag.text();
    return r;
  }
  BackendOptions bo;
  bo.opt = options.opt;
  bo.debug = options.debug;
  bo.emit = what;
  bo.object_name = filename;
  bo.layout = assembler::encode_layout(layout_table(m, diag));
  ok = run_backend(m, bo, diag, r);
  r.ok = ok;
  r.diagnostics = diag.text();
  return r;
}

} // namespace

CompileResult compile_source(std::string_view source, const std::string& filename,
                             const CompileOptions& options) {
  return compile(source, filename, options, Emit::Obj);
}

CompileResult compile_file(const std::string& path, const CompileOptions& options) {
  return emit_text(path, Emit::Obj, options);
}

CompileResult emit_text(const std::string& path, Emit what, const CompileOptions& options) {
  std::string text;
  if (!read_whole_file(path, text) || llvm::sys::fs::is_directory(path)) {
    CompileResult r;
    r.diagnostics = path + ": error: cannot read file\n";
    return r;
  }
  return compile(text, path, options, what);
}

} // namespace lanaikit::fw
