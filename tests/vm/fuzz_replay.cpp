// Replays inputs of the interpreter's libFuzzer target (tests/fuzz/cpu_fuzz.cpp, linked in
// here without libFuzzer): each file named on the command line runs through the same
// fast-vs-reference comparison, which aborts on any disagreement. CTest runs it over the
// reproducers of fixed findings and the seed corpus, so a regression fails the normal suite.
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    FILE* f = std::fopen(argv[i], "rb");
    if (!f) {
      std::fprintf(stderr, "fuzz_replay: cannot open %s\n", argv[i]);
      return 2;
    }
    std::vector<uint8_t> bytes;
    for (int c; (c = std::fgetc(f)) != EOF;) bytes.push_back(uint8_t(c));
    std::fclose(f);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    std::printf("%s: fast and reference agree\n", argv[i]);
  }
  return 0;
}
