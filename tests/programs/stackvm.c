/* A tiny bytecode interpreter: a stack machine with arithmetic, comparisons,
 * jumps, locals and calls, running a loop-summing program, an iterative factorial
 * and a recursive Fibonacci. Dispatch is a switch over opcodes. */
#include "lk_io.h"

enum { PUSH, ADD, SUB, MUL, DIV, LT, JZ, JMP, LOAD, STORE, PRINT, CALL, RET, DUP, HALT, ARG };

static int32_t run(const int32_t *code, int32_t arg0, int trace) {
  int32_t stack[256], locals[64];
  int32_t frames[64];
  int sp = 0, fp = 0, pc = 0, steps = 0, lbase = 0;
  stack[sp++] = arg0;
  for (;;) {
    int32_t op = code[pc++];
    steps++;
    switch (op) {
    case PUSH: stack[sp++] = code[pc++]; break;
    case ADD: sp--; stack[sp - 1] += stack[sp]; break;
    case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
    case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
    case DIV: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] / stack[sp] : 0; break;
    case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
    case JZ: { int32_t t = code[pc++]; if (stack[--sp] == 0) pc = t; break; }
    case JMP: pc = code[pc]; break;
    case LOAD: stack[sp++] = locals[lbase + code[pc++]]; break;
    case STORE: locals[lbase + code[pc++]] = stack[--sp]; break;
    case DUP: stack[sp] = stack[sp - 1]; sp++; break;
    case PRINT: if (trace) lk_printf("vm: %d\n", stack[sp - 1]); break;
    case CALL: frames[fp++] = pc + 1; frames[fp++] = lbase; lbase += 4; pc = code[pc]; break;
    case ARG: locals[lbase + code[pc++]] = stack[--sp]; break;
    case RET: if (fp == 0) return stack[sp - 1]; lbase = frames[--fp]; pc = frames[--fp]; break;
    case HALT: lk_printf("steps %d\n", steps); return sp ? stack[sp - 1] : 0;
    default: lk_printf("bad op %d\n", op); return -1;
    }
  }
}

int main(void) {
  /* sum = 0; for i = arg; i; i-- sum += i*i; */
  static const int32_t sumsq[] = {STORE, 0, PUSH, 0, STORE, 1,
                                  /* 6 */ LOAD, 0, JZ, 26, LOAD, 1, LOAD, 0, DUP, MUL, ADD, STORE, 1, LOAD, 0, PUSH, 1, SUB, STORE, 0,
                                  /* 26? */ HALT};
  /* fix the loop: jump back at index 26 instead: build by hand below */
  int32_t prog[64];
  int n = 0;
  prog[n++] = STORE; prog[n++] = 0; prog[n++] = PUSH; prog[n++] = 0; prog[n++] = STORE; prog[n++] = 1;
  int loop = n;
  prog[n++] = LOAD; prog[n++] = 0; prog[n++] = JZ; int patch = n++;
  prog[n++] = LOAD; prog[n++] = 1; prog[n++] = LOAD; prog[n++] = 0; prog[n++] = DUP; prog[n++] = MUL; prog[n++] = ADD; prog[n++] = STORE; prog[n++] = 1;
  prog[n++] = LOAD; prog[n++] = 0; prog[n++] = PUSH; prog[n++] = 1; prog[n++] = SUB; prog[n++] = STORE; prog[n++] = 0;
  prog[n++] = JMP; prog[n++] = loop;
  prog[patch] = n;
  prog[n++] = LOAD; prog[n++] = 1; prog[n++] = PRINT; prog[n++] = HALT;
  lk_printf("sumsq(100) = %d (unused table %d)\n", run(prog, 100, 1), sumsq[0]);
  /* fib(n) recursive: f: ARG 0; if n < 2 return n; return f(n-1) + f(n-2) */
  int32_t fib[64];
  n = 0;
  fib[n++] = CALL; fib[n++] = 4; fib[n++] = PRINT; fib[n++] = HALT;
  /* 4 */ fib[n++] = ARG; fib[n++] = 0; fib[n++] = LOAD; fib[n++] = 0; fib[n++] = PUSH; fib[n++] = 2; fib[n++] = LT; fib[n++] = JZ; int p2 = n++;
  fib[n++] = LOAD; fib[n++] = 0; fib[n++] = RET;
  fib[p2] = n;
  fib[n++] = LOAD; fib[n++] = 0; fib[n++] = PUSH; fib[n++] = 1; fib[n++] = SUB; fib[n++] = CALL; fib[n++] = 4;
  fib[n++] = LOAD; fib[n++] = 0; fib[n++] = PUSH; fib[n++] = 2; fib[n++] = SUB; fib[n++] = CALL; fib[n++] = 4;
  fib[n++] = ADD; fib[n++] = RET;
  int32_t r = run(fib, 15, 1);
  lk_printf("fib(15) = %d\n", r);
  return (int)(r & 0x7f);
}
