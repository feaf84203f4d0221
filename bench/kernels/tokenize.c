/* Benchmark kernel: a byte-parsing state machine. Generates a 16 KiB pseudo-random
 * text of identifiers, numbers (decimal and 0x hex), strings with escapes, comments
 * and operators, then tokenizes it PASSES times with a switch-driven state machine,
 * counting tokens per class and folding token values into a checksum. Estimated
 * cost at -O2 on Lanai: measured ~1 M instructions per pass (~60 per byte), so
 * PASSES=60 is ~61 M. */
#include "bench_io.h"

#ifndef PASSES
#define PASSES 60
#endif
#define TEXT 16384

static char text[TEXT + 1];

enum { S_START, S_IDENT, S_DEC, S_HEX0, S_HEX, S_STR, S_ESC, S_SLASH, S_COMMENT };
enum { T_IDENT, T_NUM, T_STR, T_OP, T_COMMENT, T_NCLASS };

static void gen(void) {
  static const char *const idents[] = {"rx", "tx_ring", "dma", "len", "mac0", "status", "i", "Lanai"};
  static const char ops[] = "+-*=<>;(){},";
  uint32_t seed = 4242;
  int n = 0;
  while (n < TEXT - 40) {
    uint32_t r = bench_rand(&seed);
    const char *w;
    char tmp[24];
    switch (r % 8) {
    case 0: case 1: case 2: w = idents[(r >> 8) % 8]; break;
    case 3: { uint32_t v = (r >> 8) % 100000; int k = 0; char d[12]; do { d[k++] = (char)('0' + v % 10); v /= 10; } while (v); int m = 0; while (k) tmp[m++] = d[--k]; tmp[m] = 0; w = tmp; break; }
    case 4: { uint32_t v = r >> 12; tmp[0] = '0'; tmp[1] = 'x'; for (int k = 0; k < 5; k++) tmp[2 + k] = "0123456789abcdef"[(v >> (4 * k)) & 15]; tmp[7] = 0; w = tmp; break; }
    case 5: w = (r >> 8) & 1 ? "\"a\\\"b\"" : "\"dma ok\""; break;
    case 6: w = "/* c */"; break;
    default: tmp[0] = ops[(r >> 8) % 12]; tmp[1] = 0; w = tmp; break;
    }
    while (*w) text[n++] = *w++;
    text[n++] = (r >> 20) % 5 ? ' ' : '\n';
  }
  while (n < TEXT) text[n++] = ' ';
  text[TEXT] = 0;
}

int main(void) {
  gen();
  uint32_t counts[T_NCLASS] = {0, 0, 0, 0, 0};
  uint32_t h = 2166136261u;
  for (int p = 0; p < PASSES; p++) {
    int state = S_START;
    uint32_t val = 0;
    for (const char *s = text;; s++) {
      unsigned char c = (unsigned char)*s;
      switch (state) {
      case S_START:
        if (c == 0) goto done;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') { state = S_IDENT; val = c; }
        else if (c == '0') { state = S_HEX0; val = 0; }
        else if (c >= '1' && c <= '9') { state = S_DEC; val = c - '0'; }
        else if (c == '"') { state = S_STR; val = 0; }
        else if (c == '/') state = S_SLASH;
        else if (c != ' ' && c != '\n') { counts[T_OP]++; h = (h ^ c) * 16777619u; }
        break;
      case S_IDENT:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') val = val * 31 + c;
        else { counts[T_IDENT]++; h = (h ^ val) * 16777619u; state = S_START; s--; }
        break;
      case S_HEX0:
        if (c == 'x') { state = S_HEX; break; }
        state = S_DEC; /* fallthrough into decimal handling of this char */
        /* fallthrough */
      case S_DEC:
        if (c >= '0' && c <= '9') val = val * 10 + (c - '0');
        else { counts[T_NUM]++; h = (h ^ val) * 16777619u; state = S_START; s--; }
        break;
      case S_HEX:
        if (c >= '0' && c <= '9') val = val << 4 | (c - '0');
        else if (c >= 'a' && c <= 'f') val = val << 4 | (c - 'a' + 10);
        else { counts[T_NUM]++; h = (h ^ val) * 16777619u; state = S_START; s--; }
        break;
      case S_STR:
        if (c == '\\') state = S_ESC;
        else if (c == '"') { counts[T_STR]++; h = (h ^ val) * 16777619u; state = S_START; }
        else val += c;
        break;
      case S_ESC: val += c * 3u; state = S_STR; break;
      case S_SLASH:
        if (c == '*') state = S_COMMENT;
        else { counts[T_OP]++; state = S_START; s--; }
        break;
      case S_COMMENT:
        if (c == '/' && s[-1] == '*') { counts[T_COMMENT]++; state = S_START; }
        break;
      }
    }
  done:;
  }
  uint32_t sum = h;
  for (int i = 0; i < T_NCLASS; i++) sum = (sum ^ counts[i]) * 16777619u;
  bench_result("tokenize", sum);
  return 0;
}
