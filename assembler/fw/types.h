// The firmware language's types and their layout (docs/language.md, "Types" and
// "Layout"): big-endian, natural alignment, the same as clang's Lanai data layout
// (E-m:e-p:32:32-i64:64-a:0:32-n32-S64) gives the corresponding C types.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "assembler/fw/ast.h"

namespace lanaikit::fw {

struct StructInfo;
struct EnumInfo;

struct Type {
  // Enum: a distinct type stored as its underlying integer (bits, is_signed); Func: the
  // address of a function with these parameters and result (4 bytes, called through).
  enum Kind { Error, Void, Int, Bool, Pointer, Array, Struct, Enum, Func } kind = Error;
  unsigned bits = 0;       // Int, Enum
  bool is_signed = false;  // Int, Enum
  const Type* elem = nullptr; // Pointer, Array; Func: the result (Void for none)
  uint32_t count = 0;         // Array
  StructInfo* st = nullptr;   // Struct
  EnumInfo* en = nullptr;     // Enum
  std::vector<const Type*> params; // Func
  uint32_t size = 0, align = 1;

  bool is_int() const { return kind == Int; }
  bool is_error() const { return kind == Error; }
  // Held in one register: integers, bool, pointers, enums, function addresses.
  bool is_scalar() const {
    return kind == Int || kind == Bool || kind == Pointer || kind == Enum || kind == Func;
  }
  // An integer or an enum: what a `switch` dispatches on, stored as `bits` wide.
  bool is_integral() const { return kind == Int || kind == Enum; }
  bool is_aggregate() const { return kind == Array || kind == Struct; }
  std::string spelling() const; // as written in the language: u32, *Slot, u8[16]
};

struct FieldInfo {
  std::string name;
  const Type* type = nullptr;
  uint32_t offset = 0;
  Pos pos;
};

struct StructInfo {
  std::string name;
  Pos pos;
  Item* decl = nullptr;
  enum State { Unresolved, InProgress, Done } state = Unresolved;
  std::vector<FieldInfo> fields;
  uint32_t size = 0, align = 1;
  const Type* type = nullptr; // the Struct type naming this
  const FieldInfo* field(const std::string& n) const {
    for (const auto& f : fields)
      if (f.name == n) return &f;
    return nullptr;
  }
};

struct EnumVariant {
  std::string name;
  Int value = 0;
  Pos pos;
};

struct EnumInfo {
  std::string name;
  Pos pos;
  Item* decl = nullptr;
  enum State { Unresolved, InProgress, Done } state = Unresolved;
  std::vector<EnumVariant> variants; // in declaration order
  const Type* underlying = nullptr;  // an integer type (u32 unless declared)
  Type* type = nullptr;              // the Enum type naming this
  const EnumVariant* variant(const std::string& n) const {
    for (const auto& v : variants)
      if (v.name == n) return &v;
    return nullptr;
  }
};

// Owns and interns every type of one compilation: equal types are the same pointer.
class TypeTable {
public:
  TypeTable();
  const Type* error() const { return &error_; }
  const Type* void_type() const { return &void_; }
  const Type* boolean() const { return &bool_; }
  const Type* integer(unsigned bits, bool is_signed) const;
  const Type* prim(Prim p) const;
  const Type* pointer(const Type* elem);
  const Type* array(const Type* elem, uint32_t count);
  StructInfo* new_struct(const std::string& name);
  EnumInfo* new_enum(const std::string& name);
  const Type* function(const std::vector<const Type*>& params, const Type* result);

private:
  Type error_, void_, bool_;
  Type ints_[4][2];
  std::map<const Type*, std::unique_ptr<Type>> pointers_;
  std::map<std::pair<const Type*, uint32_t>, std::unique_ptr<Type>> arrays_;
  std::vector<std::unique_ptr<StructInfo>> structs_;
  std::vector<std::unique_ptr<Type>> struct_types_;
  std::vector<std::unique_ptr<EnumInfo>> enums_;
  std::map<std::pair<std::vector<const Type*>, const Type*>, std::unique_ptr<Type>> functions_;
};

// Implicit conversion of a value of type `from` to `to` (docs/language.md): identity,
// integer widening within a signedness, unsigned to a strictly wider signed type.
bool implicitly_converts(const Type* from, const Type* to);

// Whether an exact constant fits in an integer type (bool: 0 or 1; an enum: its underlying
// type).
bool fits(Int value, const Type* t);

// Wraps an exact value to the width and signedness of integer type `t`.
Int wrap(Int value, const Type* t);

std::string int_to_string(Int v);

} // namespace lanaikit::fw
