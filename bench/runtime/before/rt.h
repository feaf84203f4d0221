/* Private declarations shared by the lanaikit runtime sources (firmware/lib).
 *
 * The runtime is compiled with -ffreestanding -fno-builtin -O2 for --target=lanai.
 * Its C code must never compile into calls to itself: no `*`, `/`, `%` on operands
 * that are not constants folding to shifts, no signed 64-bit `>>` by a variable
 * amount (clang emits __ashrdi3 for that on Lanai), and no loops the optimizer could
 * turn into memset/memcpy calls (-fno-builtin prevents that). CMake checks every
 * object's undefined symbols after compiling it. */
#ifndef LANAIKIT_RT_H
#define LANAIKIT_RT_H

typedef unsigned int su_int;        /* 32 bits on Lanai and on the host */
typedef int si_int;
typedef unsigned long long du_int;  /* 64 bits */
typedef long long di_int;
typedef __SIZE_TYPE__ rt_size_t;

/* Word halves of a 64-bit value, by arithmetic (independent of byte order). */
#define RT_HI(x) ((su_int)((du_int)(x) >> 32))
#define RT_LO(x) ((su_int)(du_int)(x))
#define RT_MAKE(hi, lo) (((du_int)(su_int)(hi) << 32) | (du_int)(su_int)(lo))

/* 32-bit unsigned divide with remainder: the core of div32.c (also used by div64.c). */
su_int __lanaikit_udivmodsi4(su_int n, su_int d, su_int *rem);

#endif
