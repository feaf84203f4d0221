/* Linked lists from a static node pool: build, reverse in place, merge sort,
 * remove matching nodes through a pointer-to-pointer, and a doubly linked LRU list. */
#include "lk_io.h"

struct node { int32_t v; struct node *next; };
static struct node pool[64];
static int used;
static struct node *mk(int32_t v, struct node *next) { struct node *n = &pool[used++]; n->v = v; n->next = next; return n; }

static void print(const char *tag, const struct node *n) {
  lk_printf("%s:", tag);
  for (; n; n = n->next) lk_printf(" %d", n->v);
  lk_printf("\n");
}
static struct node *reverse(struct node *n) {
  struct node *prev = 0;
  while (n) { struct node *nx = n->next; n->next = prev; prev = n; n = nx; }
  return prev;
}
static struct node *merge(struct node *a, struct node *b) {
  struct node head, *t = &head;
  while (a && b) {
    if (a->v <= b->v) { t->next = a; a = a->next; } else { t->next = b; b = b->next; }
    t = t->next;
  }
  t->next = a ? a : b;
  return head.next;
}
static struct node *msort(struct node *n) {
  if (!n || !n->next) return n;
  struct node *slow = n, *fast = n->next;
  while (fast && fast->next) { slow = slow->next; fast = fast->next->next; }
  struct node *b = slow->next;
  slow->next = 0;
  return merge(msort(n), msort(b));
}
static void remove_if_div(struct node **pp, int32_t d) {
  while (*pp) {
    if ((*pp)->v % d == 0) *pp = (*pp)->next;
    else pp = &(*pp)->next;
  }
}

struct lru { int key; struct lru *prev, *next; };
static struct lru slots[4], head = {-1, &head, &head};
static void unlink_(struct lru *e) { e->prev->next = e->next; e->next->prev = e->prev; }
static void push_front(struct lru *e) { e->next = head.next; e->prev = &head; head.next->prev = e; head.next = e; }
static int nslots;
static int touch(int key) { /* returns 1 on hit */
  for (struct lru *e = head.next; e != &head; e = e->next)
    if (e->key == key) { unlink_(e); push_front(e); return 1; }
  struct lru *e;
  if (nslots < 4) e = &slots[nslots++];
  else { e = head.prev; unlink_(e); }
  e->key = key;
  push_front(e);
  return 0;
}

int main(void) {
  struct node *l = 0;
  uint32_t st = 99;
  for (int i = 0; i < 20; i++) l = mk((int32_t)(lk_rand(&st) % 100) - 30, l);
  print("built", l);
  l = reverse(l);
  print("rev", l);
  l = msort(l);
  print("sorted", l);
  remove_if_div(&l, 3);
  print("no3", l);
  int hits = 0;
  int keys[] = {1, 2, 3, 1, 4, 5, 1, 2, 6, 1, 3, 3};
  for (int i = 0; i < 12; i++) hits += touch(keys[i]);
  lk_printf("lru hits %d order:", hits);
  for (struct lru *e = head.next; e != &head; e = e->next) lk_printf(" %d", e->key);
  lk_printf("\n");
  return hits;
}
