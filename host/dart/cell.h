// A DART control cell as a sender's library builds it (docs/dart.md, "The cell"): 32 data
// bytes and four control words, in the encoding firmware/dart/dart_defs.fw decodes. The
// host library's send path, the tests and the experiments all build cells here, so the
// encoding lives in one place on the host side.
#pragma once

#include <array>
#include <cstdint>

namespace lanaikit::dart {

enum class Op : uint32_t { Nop = 0, Write, WriteMultiple, Read, ReadMultiple, Exception, Fetch, FetchIf };
// READ, READ_MULTIPLE, FETCH and FETCH_IF are answered on the reply VCI: their data word 0
// is the reader's offset, word 1 its tag (READ_MULTIPLE: the block's size), word 2 the
// value (Src::Value); the other opcodes' value is data word 0 (docs/dart.md, "The cell").
enum class Amode : uint32_t { Direct = 0, Indirect, Indexed };
// The address registers a cell names: i, j, k of its index field.
enum class Sel : uint32_t { I = 0, J, K };
// A register operation's or the conditional's right side.
enum class Src : uint32_t { Operand = 0, J, K, Value };
enum class RegOp : uint32_t { None = 0, Load, Not, Neg, Add, Sub, And, Or, Xor, Shl, Shr };
enum class Cmp : uint32_t { None = 0, Eq, Ne, Ltu, Geu, Lts, Ges };

inline constexpr uint32_t kDataWords = 8;
inline constexpr uint32_t kCellPayload = 48;

// One operation byte: op (7..4), destination or left side (3..2), source (1..0).
constexpr uint32_t op_byte(uint32_t op, Sel dst, Src src) {
  return op << 4 | uint32_t(dst) << 2 | uint32_t(src);
}

struct Cell {
  std::array<uint32_t, kDataWords> data{};
  uint32_t op = 0;      // opcode (31..24), mask (23..16), address mode (15..14)
  uint32_t operand = 0; // the immediate source operand
  uint32_t index = 0;   // i (31..24), j (23..16), k (15..8), conditional (7..0)
  uint32_t regops = 0;  // register operations A (31..24) and B (23..16)

  // `mask`: bit w selects data word w (WRITE, READ).
  static Cell make(Op o, uint32_t mask, Amode a, uint32_t operand) {
    Cell c;
    c.op = uint32_t(o) << 24 | (mask & 0xFF) << 16 | uint32_t(a) << 14;
    c.operand = operand;
    return c;
  }
  // Register numbers within the connection's window.
  Cell& regs(uint32_t i, uint32_t j = 0, uint32_t k = 0) {
    index = (index & 0xFF) | (i & 0xFF) << 24 | (j & 0xFF) << 16 | (k & 0xFF) << 8;
    return *this;
  }
  Cell& reg_ops(RegOp a, Sel a_dst, Src a_src, RegOp b = RegOp::None, Sel b_dst = Sel::I,
                Src b_src = Src::Operand) {
    regops = op_byte(uint32_t(a), a_dst, a_src) << 24 |
             (b == RegOp::None ? 0 : op_byte(uint32_t(b), b_dst, b_src) << 16);
    return *this;
  }
  Cell& cond(Cmp cmp, Sel left, Src right) {
    index = (index & ~0xFFu) | op_byte(uint32_t(cmp), left, right);
    return *this;
  }
  // The 48 payload bytes, big-endian words.
  std::array<uint8_t, kCellPayload> bytes() const;
  static Cell parse(const std::array<uint8_t, kCellPayload>& b);
};

} // namespace lanaikit::dart
