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

struct Type {
  enum Kind { Error, Void, Int, Bool, Pointer, Array, Struct } kind = Error;
  unsigned bits = 0;       // Int
  bool is_signed = false;  // Int
  const Type* elem = nullptr; // Pointer, Array
  uint32_t count = 0;         // Array
  StructInfo* st = nullptr;   // Struct
  uint32_t size = 0, align = 1;

  bool is_int() const { return kind == Int; }
  bool is_error() const { return kind == Error; }
  bool is_scalar() const { return kind == Int || kind == Bool || kind == Pointer; }
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

private:
  Type error_, void_, bool_;
  Type ints_[4][2];
  std::map<const Type*, std::unique_ptr<Type>> pointers_;
  std::map<std::pair<const Type*, uint32_t>, std::unique_ptr<Type>> arrays_;
  std::vector<std::unique_ptr<StructInfo>> structs_;
  std::vector<std::unique_ptr<Type>> struct_types_;
};

// Implicit conversion of a value of type `from` to `to` (docs/language.md): identity,
// integer widening within a signedness, unsigned to a strictly wider signed type.
bool implicitly_converts(const Type* from, const Type* to);

// Whether an exact constant fits in an integer type (bool: 0 or 1).
bool fits(Int value, const Type* t);

// Wraps an exact value to the width and signedness of integer type `t`.
Int wrap(Int value, const Type* t);

std::string int_to_string(Int v);

} // namespace lanaikit::fw
