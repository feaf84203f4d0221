/* Function pointers: tables of operations, callbacks, pointers returned from
 * functions, pointers stored in structs, and indirect calls with stack arguments. */
#include "lk_io.h"

typedef int32_t (*binop)(int32_t, int32_t);
static int32_t op_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static int32_t op_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static int32_t op_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static int32_t op_div(int32_t a, int32_t b) { return b ? a / b : 0; }
static int32_t op_max(int32_t a, int32_t b) { return a > b ? a : b; }

static const binop table[] = {op_add, op_sub, op_mul, op_div, op_max};
static const char *const names[] = {"add", "sub", "mul", "div", "max"};

static binop pick(int i) { return table[i % 5]; }

static int32_t fold(const int32_t *v, int n, binop f, int32_t init) {
  for (int i = 0; i < n; i++) init = f(init, v[i]);
  return init;
}

struct handler {
  const char *name;
  int32_t (*fn)(int32_t, int32_t, int32_t, int32_t, int32_t, int32_t); /* six args: two on the stack */
};
static int32_t six_a(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f) { return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f; }
static int32_t six_b(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f) { return a - b + c - d + e - f; }
static struct handler handlers[2] = {{"weighted", six_a}, {"alternating", six_b}};

static void apply_each(void (*cb)(int, void *), void *ctx, int n) {
  for (int i = 0; i < n; i++) cb(i, ctx);
}
static void accumulate(int i, void *ctx) { *(int32_t *)ctx += i * i; }

static int64_t call64(int64_t (*f)(int64_t, int64_t), int64_t a, int64_t b) { return f(a, b); }
static int64_t mul64(int64_t a, int64_t b) { return a * b; }

int main(void) {
  int32_t v[] = {5, -3, 12, 7, -1, 9};
  for (int i = 0; i < 5; i++)
    lk_printf("%s: %d %d\n", names[i], fold(v, 6, table[i], 1), pick(i + 5)(100, 7));
  for (int i = 0; i < 2; i++)
    lk_printf("%s: %d\n", handlers[i].name, handlers[i].fn(1, 2, 3, 4, 5, 6));
  int32_t acc = 0;
  apply_each(accumulate, &acc, 10);
  lk_printf("acc %d\n", acc);
  lk_printf("call64 %lld\n", call64(mul64, -123456789ll, 1000003ll));
  /* choose via a computed index, compare function pointers for equality only */
  binop chosen = v[2] > 10 ? op_mul : op_add;
  lk_printf("chosen is mul: %d, result %d\n", chosen == op_mul, chosen(v[2], v[3]));
  return (int)(acc & 0x7f);
}
