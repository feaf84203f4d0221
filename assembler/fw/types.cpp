#include "assembler/fw/types.h"

namespace lanaikit::fw {

std::string Type::spelling() const {
  switch (kind) {
  case Error: return "<error>";
  case Void: return "void";
  case Bool: return "bool";
  case Int: {
    std::string s(1, is_signed ? 'i' : 'u');
    s += std::to_string(bits);
    return s;
  }
  case Pointer: {
    std::string s(1, '*');
    s += elem->spelling();
    return s;
  }
  case Array:
    // Suffixes apply left to right: u8[4][2] is an array of 2 elements of type u8[4].
    return elem->spelling() + "[" + std::to_string(count) + "]";
  case Struct: return st->name;
  case Enum: return en->name;
  case Func: {
    std::string s = "fn(";
    for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i]->spelling();
    s += ")";
    if (elem->kind != Void) s += " -> " + elem->spelling();
    return s;
  }
  }
  return "?";
}

TypeTable::TypeTable() {
  error_.kind = Type::Error;
  void_.kind = Type::Void;
  bool_.kind = Type::Bool;
  bool_.size = bool_.align = 1;
  for (int w = 0; w < 4; ++w)
    for (int s = 0; s < 2; ++s) {
      Type& t = ints_[w][s];
      t.kind = Type::Int;
      t.bits = 8u << w;
      t.is_signed = s;
      t.size = t.align = t.bits / 8;
    }
}

const Type* TypeTable::integer(unsigned bits, bool is_signed) const {
  int w = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
  return &ints_[w][is_signed ? 1 : 0];
}

const Type* TypeTable::prim(Prim p) const {
  switch (p) {
  case Prim::U8: return integer(8, false);
  case Prim::U16: return integer(16, false);
  case Prim::U32: return integer(32, false);
  case Prim::U64: return integer(64, false);
  case Prim::I8: return integer(8, true);
  case Prim::I16: return integer(16, true);
  case Prim::I32: return integer(32, true);
  case Prim::I64: return integer(64, true);
  case Prim::Bool: return boolean();
  }
  return error();
}

const Type* TypeTable::pointer(const Type* elem) {
  auto& slot = pointers_[elem];
  if (!slot) {
    slot = std::make_unique<Type>();
    slot->kind = Type::Pointer;
    slot->elem = elem;
    slot->size = slot->align = 4;
  }
  return slot.get();
}

const Type* TypeTable::array(const Type* elem, uint32_t count) {
  auto& slot = arrays_[{elem, count}];
  if (!slot) {
    slot = std::make_unique<Type>();
    slot->kind = Type::Array;
    slot->elem = elem;
    slot->count = count;
    slot->size = elem->size * count; // the caller checked the product fits
    slot->align = elem->align;
  }
  return slot.get();
}

StructInfo* TypeTable::new_struct(const std::string& name) {
  structs_.push_back(std::make_unique<StructInfo>());
  StructInfo* s = structs_.back().get();
  s->name = name;
  struct_types_.push_back(std::make_unique<Type>());
  Type* t = struct_types_.back().get();
  t->kind = Type::Struct;
  t->st = s;
  s->type = t;
  return s;
}

EnumInfo* TypeTable::new_enum(const std::string& name) {
  enums_.push_back(std::make_unique<EnumInfo>());
  EnumInfo* e = enums_.back().get();
  e->name = name;
  struct_types_.push_back(std::make_unique<Type>());
  Type* t = struct_types_.back().get();
  t->kind = Type::Enum;
  t->en = e;
  // Until the underlying type is resolved (sema does it first): u32.
  t->bits = 32;
  t->size = t->align = 4;
  e->type = t;
  return e;
}

const Type* TypeTable::function(const std::vector<const Type*>& params, const Type* result) {
  auto& slot = functions_[{params, result}];
  if (!slot) {
    slot = std::make_unique<Type>();
    slot->kind = Type::Func;
    slot->params = params;
    slot->elem = result;
    slot->size = slot->align = 4;
  }
  return slot.get();
}

bool implicitly_converts(const Type* from, const Type* to) {
  if (from == to) return true;
  if (!from->is_int() || !to->is_int()) return false;
  if (from->is_signed == to->is_signed) return from->bits <= to->bits;
  return !from->is_signed && to->is_signed && from->bits < to->bits;
}

bool fits(Int v, const Type* t) {
  if (t->kind == Type::Bool) return v == 0 || v == 1;
  if (!t->is_integral()) return false;
  if (t->is_signed) {
    Int lo = -(Int(1) << (t->bits - 1)), hi = (Int(1) << (t->bits - 1)) - 1;
    return v >= lo && v <= hi;
  }
  return v >= 0 && v <= (Int(1) << t->bits) - 1;
}

Int wrap(Int v, const Type* t) {
  if (t->kind == Type::Bool) return v != 0;
  if (!t->is_integral()) return v;
  unsigned __int128 u = (unsigned __int128)v & (((unsigned __int128)1 << t->bits) - 1);
  if (t->is_signed && (u >> (t->bits - 1)) & 1) return Int(u) - (Int(1) << t->bits);
  return Int(u);
}

std::string int_to_string(Int v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  std::string s;
  while (u) {
    s.insert(s.begin(), char('0' + int(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

} // namespace lanaikit::fw
