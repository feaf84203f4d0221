/* A binary search tree from a node pool: insert, lookup, in-order traversal
 * (recursive and with an explicit stack), height, deletion with successor, and
 * a range count. */
#include "lk_io.h"

struct tn { int32_t key; struct tn *l, *r; };
static struct tn nodes[128];
static int nused;

static struct tn *insert(struct tn *t, int32_t k) {
  if (!t) { struct tn *n = &nodes[nused++]; n->key = k; n->l = n->r = 0; return n; }
  if (k < t->key) t->l = insert(t->l, k);
  else if (k > t->key) t->r = insert(t->r, k);
  return t;
}
static int height(const struct tn *t) {
  if (!t) return 0;
  int a = height(t->l), b = height(t->r);
  return 1 + (a > b ? a : b);
}
static void inorder(const struct tn *t, int32_t *out, int *n) {
  if (!t) return;
  inorder(t->l, out, n);
  out[(*n)++] = t->key;
  inorder(t->r, out, n);
}
static struct tn *del(struct tn *t, int32_t k) {
  if (!t) return 0;
  if (k < t->key) t->l = del(t->l, k);
  else if (k > t->key) t->r = del(t->r, k);
  else {
    if (!t->l) return t->r;
    if (!t->r) return t->l;
    struct tn *s = t->r;
    while (s->l) s = s->l;
    t->key = s->key;
    t->r = del(t->r, s->key);
  }
  return t;
}
static int range_count(const struct tn *t, int32_t lo, int32_t hi) {
  if (!t) return 0;
  if (t->key < lo) return range_count(t->r, lo, hi);
  if (t->key > hi) return range_count(t->l, lo, hi);
  return 1 + range_count(t->l, lo, hi) + range_count(t->r, lo, hi);
}

int main(void) {
  struct tn *root = 0;
  uint32_t st = 2024;
  for (int i = 0; i < 100; i++) root = insert(root, (int32_t)(lk_rand(&st) % 1000) - 500);
  int32_t out[128];
  int n = 0;
  inorder(root, out, &n);
  lk_printf("n %d height %d min %d max %d\n", n, height(root), out[0], out[n - 1]);
  for (int i = 0; i < n; i += 9) lk_printf("%d ", out[i]);
  lk_printf("\n");
  for (int i = 0; i < n; i += 2) root = del(root, out[i]);
  /* iterative traversal with an explicit stack */
  const struct tn *stack[64];
  int sp = 0, cnt = 0;
  int32_t prev = -100000;
  int sorted = 1;
  const struct tn *cur = root;
  while (cur || sp) {
    while (cur) { stack[sp++] = cur; cur = cur->l; }
    cur = stack[--sp];
    sorted &= cur->key > prev;
    prev = cur->key;
    cnt++;
    cur = cur->r;
  }
  lk_printf("after delete: %d sorted %d height %d in[-100,100] %d\n", cnt, sorted, height(root), range_count(root, -100, 100));
  return cnt;
}
