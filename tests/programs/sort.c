/* Sorting: a generic qsort-like sort (byte-wise swaps, comparator callbacks),
 * insertion sort on shorts, merge sort on 64-bit keys with a scratch buffer, and
 * a stable sort check on records. */
#include "lk_io.h"

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size) {
  while (size--) {
    unsigned char t = *a;
    *a++ = *b;
    *b++ = t;
  }
}

/* quicksort (Lomuto partition, median-of-three) with insertion sort for small ranges */
static void gsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  unsigned char *b = (unsigned char *)base;
  while (n > 8) {
    size_t mid = n / 2;
    if (cmp(b + mid * size, b) < 0) swap_bytes(b + mid * size, b, size);
    if (cmp(b + (n - 1) * size, b) < 0) swap_bytes(b + (n - 1) * size, b, size);
    if (cmp(b + (n - 1) * size, b + mid * size) < 0) swap_bytes(b + (n - 1) * size, b + mid * size, size);
    swap_bytes(b + mid * size, b + (n - 1) * size, size); /* pivot to the end */
    unsigned char *pivot = b + (n - 1) * size;
    size_t store = 0;
    for (size_t i = 0; i < n - 1; i++)
      if (cmp(b + i * size, pivot) < 0) swap_bytes(b + i * size, b + store++ * size, size);
    swap_bytes(b + store * size, pivot, size);
    /* recurse on the smaller side */
    if (store < n - store - 1) {
      gsort(b, store, size, cmp);
      b += (store + 1) * size;
      n -= store + 1;
    } else {
      gsort(b + (store + 1) * size, n - store - 1, size, cmp);
      n = store;
    }
  }
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--) swap_bytes(b + (j - 1) * size, b + j * size, size);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}
static int cmp_i32_desc(const void *a, const void *b) { return cmp_i32(b, a); }

struct person { char name[8]; uint8_t age; int32_t id; };
static int cmp_age(const void *a, const void *b) {
  const struct person *p = a, *q = b;
  return (int)p->age - (int)q->age;
}

static void msort64(uint64_t *v, uint64_t *tmp, int n) {
  if (n < 2) return;
  int h = n / 2;
  msort64(v, tmp, h);
  msort64(v + h, tmp, n - h);
  int i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = v[i] <= v[j] ? v[i++] : v[j++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  for (k = 0; k < n; k++) v[k] = tmp[k];
}

int main(void) {
  uint32_t st = 12345;
  int32_t a[200];
  for (int i = 0; i < 200; i++) a[i] = (int32_t)(lk_rand(&st) % 2001) - 1000;
  gsort(a, 200, sizeof a[0], cmp_i32);
  int ok = 1;
  for (int i = 1; i < 200; i++) ok &= a[i - 1] <= a[i];
  lk_printf("asc ok=%d first %d %d %d last %d\n", ok, a[0], a[1], a[2], a[199]);
  gsort(a, 200, sizeof a[0], cmp_i32_desc);
  for (int i = 0; i < 200; i += 20) lk_printf("%d ", a[i]);
  lk_printf("\n");
  int16_t s[50];
  for (int i = 0; i < 50; i++) s[i] = (int16_t)((int32_t)(lk_rand(&st) & 0xFFFF) - 32768);
  for (int i = 1; i < 50; i++) {
    int16_t k = s[i];
    int j = i - 1;
    while (j >= 0 && s[j] > k) { s[j + 1] = s[j]; j--; }
    s[j + 1] = k;
  }
  for (int i = 0; i < 50; i += 7) lk_printf("%d ", s[i]);
  lk_printf("\n");
  uint64_t w[77], tmp[77];
  for (int i = 0; i < 77; i++) w[i] = (uint64_t)lk_rand(&st) << 32 | lk_rand(&st);
  msort64(w, tmp, 77);
  ok = 1;
  for (int i = 1; i < 77; i++) ok &= w[i - 1] <= w[i];
  lk_printf("msort ok=%d %016llx %016llx\n", ok, w[0], w[76]);
  struct person ps[6] = {{"ann", 30, 1}, {"bob", 25, 2}, {"cy", 30, 3}, {"di", 19, 4}, {"ed", 25, 5}, {"flo", 99, 6}};
  gsort(ps, 6, sizeof ps[0], cmp_age);
  for (int i = 0; i < 6; i++) lk_printf("%s:%u ", ps[i].name, ps[i].age);
  lk_printf("\n");
  return ok;
}
