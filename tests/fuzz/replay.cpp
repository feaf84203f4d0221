// Replays inputs of a libFuzzer target without libFuzzer, in the normal build: linked with
// the target's source (tests/fuzz/<target>_fuzz.cpp), it runs LLVMFuzzerTestOneInput on
// each file named on the command line, which aborts on any finding. CTest runs it over the
// target's seeds and the reproducers of its fixed findings (tests/fuzz/CMakeLists.txt), so
// a regression fails the normal suite without the clang build.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional, as with libFuzzer (lua_fuzz moves into a temporary directory there).
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  // Every file is read before the target initializes: it may change directory.
  std::vector<std::vector<uint8_t>> inputs;
  for (int i = 1; i < argc; ++i) {
    FILE* f = std::fopen(argv[i], "rb");
    if (!f) {
      std::fprintf(stderr, "fuzz_replay: cannot open %s\n", argv[i]);
      return 2;
    }
    std::vector<uint8_t> bytes;
    for (int c; (c = std::fgetc(f)) != EOF;) bytes.push_back(uint8_t(c));
    std::fclose(f);
    inputs.push_back(std::move(bytes));
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (size_t i = 0; i < inputs.size(); ++i) {
    LLVMFuzzerTestOneInput(inputs[i].data(), inputs[i].size());
    std::printf("%s: ok\n", argv[i + 1]);
    std::fflush(stdout);
  }
  return 0;
}
