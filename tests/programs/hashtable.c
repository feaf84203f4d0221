/* Hashing: FNV-1a, djb2 and a multiplicative hash over strings; an open-addressing
 * hash table with linear probing and tombstones storing word counts. */
#include "lk_io.h"

static uint32_t djb2(const char *s) { uint32_t h = 5381; while (*s) h = h * 33u + (unsigned char)*s++; return h; }
static uint32_t fnv1a(const char *s) { uint32_t h = 2166136261u; while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; } return h; }

#define CAP 64
struct slot { const char *key; int32_t count; uint8_t state; /* 0 empty 1 full 2 dead */ };
static struct slot tab[CAP];

static struct slot *find(const char *k, int insert) {
  uint32_t i = fnv1a(k) & (CAP - 1);
  struct slot *dead = 0;
  for (int n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
    struct slot *s = &tab[i];
    if (s->state == 0) {
      if (!insert) return 0;
      if (dead) s = dead;
      s->key = k; s->count = 0; s->state = 1;
      return s;
    }
    if (s->state == 2) { if (!dead) dead = s; continue; }
    if (strcmp(s->key, k) == 0) return s;
  }
  return 0;
}

int main(void) {
  static const char *text[] = {"the", "cat", "sat", "on", "the", "mat", "and", "the", "dog", "sat", "on", "the", "cat",
                               "lanai", "nic", "firmware", "dma", "the", "nic", "dma", "dma"};
  int n = sizeof text / sizeof text[0];
  for (int i = 0; i < n; i++) find(text[i], 1)->count++;
  const char *probe[] = {"the", "cat", "dma", "nic", "zebra", "on"};
  for (int i = 0; i < 6; i++) {
    struct slot *s = find(probe[i], 0);
    lk_printf("%s: %d djb2 %08x fnv %08x\n", probe[i], s ? s->count : 0, djb2(probe[i]), fnv1a(probe[i]));
  }
  struct slot *s = find("the", 0);
  s->state = 2; /* delete */
  lk_printf("after delete: the=%d cat=%d\n", find("the", 0) ? 1 : 0, find("cat", 0)->count);
  find("the", 1)->count = 100;
  int total = 0, used = 0;
  for (int i = 0; i < CAP; i++)
    if (tab[i].state == 1) { used++; total += tab[i].count; }
  lk_printf("used %d total %d\n", used, total);
  return used;
}
