"""The check-and-count helper shared by cli_test.py and debug_test.py: one line per check
("ok" or "FAIL" with the detail), counts for the final summary."""


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok   {name}")
        else:
            self.failed += 1
            print(f"  FAIL {name}\n       {detail}")
