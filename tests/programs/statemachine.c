/* A small state machine: a traffic-light controller driven by an event script,
 * and a tokenizer for a tiny expression language whose tokens are then evaluated by
 * a shunting-yard evaluator (operator precedence, parentheses, unary minus). */
#include "lk_io.h"

enum light { RED, RED_AMBER, GREEN, AMBER, FLASHING };
enum event { TICK, FAULT, RESET };
static const char *const lname[] = {"red", "red+amber", "green", "amber", "flashing"};

static enum light step(enum light s, enum event e, int *timer) {
  if (e == FAULT) return FLASHING;
  if (e == RESET) { *timer = 0; return RED; }
  if (s == FLASHING) return FLASHING;
  static const int dur[] = {3, 1, 4, 1};
  if (++*timer < dur[s]) return s;
  *timer = 0;
  switch (s) {
  case RED: return RED_AMBER;
  case RED_AMBER: return GREEN;
  case GREEN: return AMBER;
  default: return RED;
  }
}

enum tok { T_NUM, T_PLUS, T_MINUS, T_MUL, T_DIV, T_MOD, T_LP, T_RP, T_END, T_ERR };

static const char *src;
static int32_t tokval;
static enum tok next_tok(void) {
  while (*src == ' ') src++;
  char c = *src;
  if (c == 0) return T_END;
  src++;
  if (c >= '0' && c <= '9') {
    tokval = c - '0';
    while (*src >= '0' && *src <= '9') tokval = tokval * 10 + (*src++ - '0');
    return T_NUM;
  }
  switch (c) {
  case '+': return T_PLUS;
  case '-': return T_MINUS;
  case '*': return T_MUL;
  case '/': return T_DIV;
  case '%': return T_MOD;
  case '(': return T_LP;
  case ')': return T_RP;
  }
  return T_ERR;
}

/* recursive descent: expr = term {(+|-) term}; term = unary {(*|/|%) unary} */
static enum tok cur;
static int err;
static int32_t expr(void);
static int32_t unary(void) {
  if (cur == T_MINUS) { cur = next_tok(); return -unary(); }
  if (cur == T_NUM) { int32_t v = tokval; cur = next_tok(); return v; }
  if (cur == T_LP) {
    cur = next_tok();
    int32_t v = expr();
    if (cur != T_RP) err = 1;
    cur = next_tok();
    return v;
  }
  err = 1;
  return 0;
}
static int32_t term(void) {
  int32_t v = unary();
  while (cur == T_MUL || cur == T_DIV || cur == T_MOD) {
    enum tok op = cur;
    cur = next_tok();
    int32_t r = unary();
    if (op == T_MUL) v *= r;
    else if (r == 0) { err = 2; v = 0; }
    else v = op == T_DIV ? v / r : v % r;
  }
  return v;
}
static int32_t expr(void) {
  int32_t v = term();
  while (cur == T_PLUS || cur == T_MINUS) {
    enum tok op = cur;
    cur = next_tok();
    int32_t r = term();
    v = op == T_PLUS ? v + r : v - r;
  }
  return v;
}

int main(void) {
  enum light s = RED;
  int timer = 0;
  const char *script = "tttttttttttttftttrttttt";
  for (const char *p = script; *p; p++) {
    enum event e = *p == 'f' ? FAULT : *p == 'r' ? RESET : TICK;
    s = step(s, e, &timer);
    lk_printf("%c:%s ", *p, lname[s]);
  }
  lk_printf("\n");
  const char *exprs[] = {"1+2*3", "(1+2)*3", "-7/2", "-7%3", "100/(5-5)", "2*(3+(4-1)*2)-10", "((12))", "1+", "17 % -5 * 3", "123456*7-99999"};
  int32_t sum = 0;
  for (int i = 0; i < 10; i++) {
    src = exprs[i];
    err = 0;
    cur = next_tok();
    int32_t v = expr();
    if (cur != T_END) err = 3;
    lk_printf("%s = %d%s\n", exprs[i], v, err == 0 ? "" : err == 2 ? " (div0)" : " (syntax)");
    sum += v;
  }
  return (int)(sum & 0x7f);
}
