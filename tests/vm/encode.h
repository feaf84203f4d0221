// Bit-level Lanai encoders for vm tests, written from the format diagrams of
// LanaiInstrFormats.td (independently of isa/decode.cpp, so tests also cross-check it).
#pragma once

#include <cstdint>

namespace enc {

enum Cond : uint32_t { T, F, HI, LS, CC, CS, NE, EQ, VC, VS, PL, MI, GE, LT, GT, LE };
enum Alu : uint32_t { ADD, ADDC, SUB, SUBB, AND, OR, XOR, SH };

inline uint32_t ri(Alu op, uint32_t rd, uint32_t rs1, uint32_t imm16, bool f = false, bool h = false) {
  return (uint32_t(op) << 28) | (rd << 23) | (rs1 << 18) | (uint32_t(f) << 17) |
         (uint32_t(h) << 16) | (imm16 & 0xFFFF);
}
// RR: op 0..6 = ALU, 7 = special (jjjjj selects shift/select).
inline uint32_t rr(uint32_t op, uint32_t rd, uint32_t rs1, uint32_t rs2, bool f = false,
                   Cond c = T, uint32_t jjjjj = 0) {
  return (0xCu << 28) | (rd << 23) | (rs1 << 18) | (uint32_t(f) << 17) | ((c & 1) << 16) |
         (rs2 << 11) | (op << 8) | (jjjjj << 3) | (uint32_t(c) >> 1);
}
inline uint32_t shl_r(uint32_t rd, uint32_t rs1, uint32_t rs2, bool f = false) {
  return rr(7, rd, rs1, rs2, f, T, 0b10000);
}
inline uint32_t sha_r(uint32_t rd, uint32_t rs1, uint32_t rs2, bool f = false) {
  return rr(7, rd, rs1, rs2, f, T, 0b11000);
}
inline uint32_t sel(Cond c, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return rr(7, rd, rs1, rs2, false, c, 0);
}
// RM: P/Q per the .td: (0,0) ea=rs1; (0,1) post-modify; (1,0) offset; (1,1) pre-modify.
inline uint32_t rm(bool store, uint32_t rd, uint32_t rs1, int32_t off, bool p = true,
                   bool q = false) {
  return ((0x8u | uint32_t(store)) << 28) | (rd << 23) | (rs1 << 18) | (uint32_t(p) << 17) |
         (uint32_t(q) << 16) | (uint32_t(off) & 0xFFFF);
}
inline uint32_t ld(uint32_t rd, uint32_t rs1, int32_t off) { return rm(false, rd, rs1, off); }
inline uint32_t st(uint32_t rd, uint32_t rs1, int32_t off) { return rm(true, rd, rs1, off); }
// RRM: yl = 0b01 word, 0b00 half, 0b10 byte; e = zero-extend.
inline uint32_t rrm(bool store, uint32_t rd, uint32_t rs1, uint32_t rs2, uint32_t yl, bool e,
                    uint32_t bbb = 0, bool p = true, bool q = false) {
  return ((0xAu | uint32_t(store)) << 28) | (rd << 23) | (rs1 << 18) | (uint32_t(p) << 17) |
         (uint32_t(q) << 16) | (rs2 << 11) | (bbb << 8) | (yl << 1) | uint32_t(e);
}
// SPLS: y = byte, s = store, e = zero-extend.
inline uint32_t spls(uint32_t rd, uint32_t rs1, int32_t off10, bool y, bool s, bool e,
                     bool p = true, bool q = false) {
  return (0xFu << 28) | (rd << 23) | (rs1 << 18) | (0b110u << 15) | (uint32_t(y) << 14) |
         (uint32_t(s) << 13) | (uint32_t(e) << 12) | (uint32_t(p) << 11) | (uint32_t(q) << 10) |
         (uint32_t(off10) & 0x3FF);
}
inline uint32_t br(Cond c, uint32_t target) {
  return (0xEu << 28) | ((uint32_t(c) >> 1) << 25) | (target & 0x1FFFFFC) | (c & 1);
}
inline uint32_t bt(uint32_t target) { return br(T, target); }
inline uint32_t scc(Cond c, uint32_t rd) {
  return (0xEu << 28) | ((uint32_t(c) >> 1) << 25) | (rd << 18) | (1u << 1) | (c & 1);
}
inline uint32_t sli(uint32_t rd, uint32_t value21) {
  return (0xFu << 28) | (rd << 23) | (((value21 >> 16) & 0x1F) << 18) | (1u << 17) |
         (value21 & 0xFFFF);
}
inline uint32_t sls(bool store, uint32_t rd, uint32_t addr21) {
  return (0xFu << 28) | (rd << 23) | (((addr21 >> 16) & 0x1F) << 18) | (uint32_t(store) << 16) |
         (addr21 & 0xFFFF);
}
inline uint32_t special(uint32_t op, uint32_t rd, uint32_t rs1) {
  return (0xDu << 28) | (rd << 23) | (rs1 << 18) | op;
}
inline uint32_t popc(uint32_t rd, uint32_t rs1) { return special(1, rd, rs1); }
inline uint32_t leadz(uint32_t rd, uint32_t rs1) { return special(2, rd, rs1); }
inline uint32_t trailz(uint32_t rd, uint32_t rs1) { return special(3, rd, rs1); }

inline constexpr uint32_t kNop = 0x00000001;
// st %rN, -4092[%r0]: the bare-ABI exit.
inline uint32_t exit_with(uint32_t reg) { return st(reg, 0, -4092); }
inline uint32_t putc_from(uint32_t reg) { return st(reg, 0, -4096); }

} // namespace enc
