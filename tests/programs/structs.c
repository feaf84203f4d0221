/* Structs: assignment (memcpy for large ones), passing by value (small structs are
 * split into argument registers, larger ones copied), returning structs (sret pointer
 * passed on the stack on Lanai), arrays of structs, nested structs, 64-bit members. */
#include "lk_io.h"

struct pt { int32_t x, y; };
struct rect { struct pt lo, hi; };
struct big { int32_t v[20]; int64_t tag; char name[12]; };
struct mix { uint8_t a; int64_t b; uint16_t c; int32_t d; };

static struct pt pt_add(struct pt a, struct pt b) { struct pt r = {a.x + b.x, a.y + b.y}; return r; }
static int32_t area(struct rect r) { return (r.hi.x - r.lo.x) * (r.hi.y - r.lo.y); }
static struct rect grow(struct rect r, int32_t d) {
  r.lo.x -= d; r.lo.y -= d; r.hi.x += d; r.hi.y += d;
  return r;
}
static struct big make_big(int32_t seed) {
  struct big b;
  for (int i = 0; i < 20; i++) b.v[i] = seed * (i + 1);
  b.tag = (int64_t)((uint64_t)(int64_t)seed << 33); /* modular conversion */
  const char *n = "bigstruct";
  for (int i = 0; i < 12; i++) b.name[i] = i < 9 ? n[i] : 0;
  return b;
}
static int64_t sum_big(struct big b) { /* by value: the callee gets a copy */
  int64_t s = b.tag;
  for (int i = 0; i < 20; i++) s += b.v[i];
  b.v[0] = 0; /* must not affect the caller */
  return s;
}
static struct mix mk(uint8_t a, int64_t b, uint16_t c, int32_t d) { struct mix m = {a, b, c, d}; return m; }

int main(void) {
  struct pt a = {3, 4}, b = {-10, 20};
  struct pt c = pt_add(a, b);
  lk_printf("pt %d %d\n", c.x, c.y);
  struct rect r = {{0, 0}, {5, 7}};
  struct rect g = grow(r, 2);
  lk_printf("area %d grown %d (%d,%d)-(%d,%d)\n", area(r), area(g), g.lo.x, g.lo.y, g.hi.x, g.hi.y);
  struct big bb = make_big(7);
  struct big copy = bb; /* struct assignment */
  copy.v[3] = -1;
  lk_printf("big %lld %lld %d %d %s\n", sum_big(bb), sum_big(copy), bb.v[0], bb.v[3], copy.name);
  struct big arr[3];
  for (int i = 0; i < 3; i++) arr[i] = make_big(i - 1);
  arr[0] = arr[2];
  lk_printf("arr %d %d %d %lld\n", arr[0].v[19], arr[1].v[19], arr[2].v[19], arr[0].tag);
  struct mix m = mk(200, -1234567890123ll, 60000, -5);
  struct mix ms[4];
  for (int i = 0; i < 4; i++) { ms[i] = m; ms[i].d += i; ms[i].a = (uint8_t)(ms[i].a + i * 20); }
  for (int i = 0; i < 4; i++) lk_printf("mix %u %lld %u %d\n", ms[i].a, ms[i].b, ms[i].c, ms[i].d);
  /* compound literals and nested initialisers */
  struct rect rs[] = {{{1, 2}, {3, 4}}, {.hi = {9, 9}}, {{-1, -1}, {1, 1}}};
  int32_t tot = 0;
  for (int i = 0; i < 3; i++) tot += area(rs[i]);
  lk_printf("tot %d %d\n", tot, area((struct rect){{0, 0}, {100, 3}}));
  return (int)(tot & 0x7f);
}
