/* Base64 encode/decode round trips, hex dump, and run-length encoding: byte
 * manipulation with shifts and masks, table lookups, and output buffers. */
#include "lk_io.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int enc(const uint8_t *in, int n, char *out) {
  int o = 0;
  for (int i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < n) v |= in[i + 2];
    out[o++] = b64[v >> 18 & 63];
    out[o++] = b64[v >> 12 & 63];
    out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? b64[v & 63] : '=';
  }
  out[o] = 0;
  return o;
}

static int val(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

static int dec(const char *in, uint8_t *out) {
  int o = 0;
  for (int i = 0; in[i]; i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      int d = in[i + k] == '=' ? (pad++, 0) : val(in[i + k]);
      if (d < 0) return -1;
      v = v << 6 | (uint32_t)d;
    }
    out[o++] = (uint8_t)(v >> 16);
    if (pad < 2) out[o++] = (uint8_t)(v >> 8);
    if (pad < 1) out[o++] = (uint8_t)v;
  }
  return o;
}

static int rle(const uint8_t *in, int n, uint8_t *out) {
  int o = 0;
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && in[j] == in[i] && j - i < 255) j++;
    out[o++] = (uint8_t)(j - i);
    out[o++] = in[i];
    i = j;
  }
  return o;
}

int main(void) {
  const char *msgs[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar", "Lanai NIC firmware \xff\x00\x80"};
  int lens[] = {0, 1, 2, 3, 4, 5, 6, 22};
  char e[64];
  uint8_t d[64];
  int ok = 0;
  for (int i = 0; i < 8; i++) {
    int el = enc((const uint8_t *)msgs[i], lens[i], e);
    int dl = dec(e, d);
    int same = dl == lens[i] && memcmp(d, msgs[i], (size_t)lens[i]) == 0;
    ok += same;
    lk_printf("%d \"%s\" %d %d\n", i, e, el, same);
  }
  uint8_t bin[256];
  for (int i = 0; i < 256; i++) bin[i] = (uint8_t)(i * 151 + 7);
  static char big[400];
  enc(bin, 256, big);
  lk_printf("%.60s...\n", big);
  uint8_t raw[] = {1, 1, 1, 1, 2, 3, 3, 0, 0, 0, 0, 0, 0, 9};
  uint8_t out[40];
  int rl = rle(raw, sizeof raw, out);
  for (int i = 0; i < rl; i++) lk_printf("%u%c", out[i], i % 2 ? ' ' : 'x');
  lk_printf("\nok %d\n", ok);
  return ok;
}
