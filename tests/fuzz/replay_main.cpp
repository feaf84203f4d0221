// Replays inputs of a libFuzzer target without libFuzzer: linked with the target's source
// (its LLVMFuzzerTestOneInput), it runs each file named on the command line through it.
// A target aborts on what it exists to find, so CTest runs these over the reproducers of
// fixed findings (tests/fuzz/crashes/) and the seeds, and a regression fails the normal
// suite without the clang fuzzing build.
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    FILE* f = std::fopen(argv[i], "rb");
    if (!f) {
      std::fprintf(stderr, "fuzz replay: cannot open %s\n", argv[i]);
      return 2;
    }
    std::vector<uint8_t> bytes;
    for (int c; (c = std::fgetc(f)) != EOF;) bytes.push_back(uint8_t(c));
    std::fclose(f);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    std::printf("%s: ok\n", argv[i]);
  }
  return 0;
}
