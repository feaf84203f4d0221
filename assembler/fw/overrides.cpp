// -D NAME=VALUE applied to `option const` declarations. See overrides.h.
#include "assembler/fw/overrides.h"

#include "assembler/fw/types.h"

namespace lanaikit::fw {

std::optional<Int> parse_override_value(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') negative = true, text.remove_prefix(1);
  unsigned base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    base = 16, text.remove_prefix(2);
  else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B'))
    base = 2, text.remove_prefix(2);
  unsigned __int128 v = 0;
  bool any = false;
  for (char c : text) {
    if (c == '_' && any) continue;
    unsigned d = c >= '0' && c <= '9'   ? unsigned(c - '0')
                 : c >= 'a' && c <= 'f' ? unsigned(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? unsigned(c - 'A' + 10)
                                        : 99;
    if (d >= base) return std::nullopt;
    v = v * base + d;
    if (v > 0xFFFFFFFFFFFFFFFFull) return std::nullopt;
    any = true;
  }
  if (!any) return std::nullopt;
  return negative ? -Int(v) : Int(v);
}

namespace {

// The untyped constants' range that the layout table can carry (docs/image.md).
const Int kUntypedMin = -(Int(1) << 63);
const Int kUntypedMax = (Int(1) << 64) - 1;

} // namespace

bool apply_overrides(Module& m, const std::map<std::string, std::string>& overrides,
                     Diagnostics& diag) {
  if (overrides.empty()) return true;
  bool ok = true;
  for (auto& file : m.files)
    for (auto& item : file->items) {
      if (item->kind != Item::Const) continue;
      auto it = overrides.find(item->name);
      if (it == overrides.end()) continue;
      const std::string d = "-D " + it->first + "=" + it->second + ": ";
      if (!item->is_option) {
        diag.error(item->pos, d + "constant '" + item->name +
                                  "' is not overridable (declare it 'option const " +
                                  item->name + "' to let -D set it)");
        ok = false;
        continue;
      }
      std::optional<Int> v = parse_override_value(it->second);
      if (!v) {
        diag.error(item->pos, d + "'" + it->second +
                                  "' is not an integer (decimal, 0x hex or 0b binary)");
        ok = false;
        continue;
      }
      // Typed constants: the declared integer type's range. Other declared types are
      // sema's to reject.
      const TypeExpr* te = item->type.get();
      if (te && te->kind == TypeExpr::Prim && te->prim != Prim::Bool) {
        const Type* t = m.types.prim(te->prim);
        if (!fits(*v, t)) {
          const Int lo = t->is_signed ? -(Int(1) << (t->bits - 1)) : 0;
          const Int hi = t->is_signed ? (Int(1) << (t->bits - 1)) - 1 : (Int(1) << t->bits) - 1;
          diag.error(item->pos, d + it->second + " does not fit constant '" + item->name +
                                    "' of type " + t->spelling() + " (" + int_to_string(lo) +
                                    " to " + int_to_string(hi) + ")");
          ok = false;
          continue;
        }
      } else if (!te && (*v < kUntypedMin || *v > kUntypedMax)) {
        diag.error(item->pos, d + it->second + " does not fit untyped constant '" +
                                  item->name + "' (" + int_to_string(kUntypedMin) + " to " +
                                  int_to_string(kUntypedMax) + ")");
        ok = false;
        continue;
      }
      auto lit = std::make_unique<Expr>();
      lit->kind = Expr::IntLit;
      lit->pos = item->expr ? item->expr->pos : item->pos;
      lit->value = *v;
      item->expr = std::move(lit);
    }
  return ok;
}

} // namespace lanaikit::fw
