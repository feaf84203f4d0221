// Linking many `.fw` globals (issue 17, "Quadratic linking"): the linker merges every
// object's layout table. It used to copy and re-sort the whole merged table per entity
// (10,000 globals: 7 s, 50,000: more than 20 s); LayoutMerger does it in O(n log n).
//
//   link_bench                       every size
//   link_bench --benchmark_filter=Link/   the whole linker only
//
// BM_Link: one firmware-language object with N globals (compiled once, outside the timing)
// linked with a _start stub. BM_Merger: LayoutMerger over N globals spread across N/100
// tables that each also carry the same 10 structs (a shared import). BM_PerEntity: the
// former algorithm (merge_layout per entity), for the ratio; small sizes only.
#include "assembler/assemble.h"
#include "assembler/fw/compile.h"
#include "assembler/layout.h"
#include "assembler/link.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

using namespace lanaikit;
using namespace lanaikit::assembler;

const char* const kStart = "\t.text\n\t.globl _start\n_start:\n\tbt main\n\tnop\n";

Object compile_globals(int n) {
  std::string src;
  for (int i = 0; i < n; ++i)
    src += "var g" + std::to_string(i) + ": u32 = " + std::to_string(i) + ";\n";
  src += "fn main() -> i32 { return g0 as i32; }\n";
  fw::CompileOptions co;
  co.opt = OptLevel::O0;
  co.sram_size = 16 << 20;
  fw::CompileResult r = fw::compile_source(src, "globals.fw", co);
  if (!r.ok) {
    std::cerr << r.diagnostics;
    std::exit(1);
  }
  return std::move(r.object);
}

void BM_Link(benchmark::State& state) {
  const int n = int(state.range(0));
  LinkInputs in;
  auto start = assemble(kStart, "start.s");
  if (!start) {
    state.SkipWithError(llvm::toString(start.takeError()).c_str());
    return;
  }
  in.startup = std::move(*start);
  in.objects.push_back(compile_globals(n));
  LinkOptions lo;
  lo.sram_size = 16 << 20;
  for (auto _ : state) {
    auto img = link(in, lo);
    if (!img) {
      state.SkipWithError(llvm::toString(img.takeError()).c_str());
      return;
    }
    if (img->layout_table.globals.size() != size_t(n)) state.SkipWithError("globals lost");
    benchmark::DoNotOptimize(img->layout_table);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Link)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

// A name with a number (std::string(prefix).append: GCC 12 warns falsely, -Wrestrict, on
// `"literal" + std::string` here).
std::string numbered(const char* prefix, int i) {
  return std::string(prefix).append(std::to_string(i));
}

std::vector<LayoutTable> tables(int n) {
  std::vector<LayoutTable> out;
  for (int t = 0; t * 100 < n; ++t) {
    LayoutTable table;
    for (int s = 0; s < 10; ++s)
      table.structs.push_back(
          {numbered("Shared", s), 8, 4, {{"a", 0, 4, "u32"}, {"b", 4, 4, "u32"}}});
    for (int i = t * 100; i < std::min(n, t * 100 + 100); ++i)
      table.globals.push_back({numbered("g", i), "u32", 4, std::nullopt});
    table.handlers.push_back(numbered("on_", t));
    out.push_back(std::move(table));
  }
  return out;
}

void BM_Merger(benchmark::State& state) {
  const std::vector<LayoutTable> in = tables(int(state.range(0)));
  for (auto _ : state) {
    LayoutMerger m;
    for (unsigned i = 0; i < in.size(); ++i)
      benchmark::DoNotOptimize(m.add(in[i], i));
    benchmark::DoNotOptimize(std::move(m).finish());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Merger)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

void BM_PerEntity(benchmark::State& state) {
  const std::vector<LayoutTable> in = tables(int(state.range(0)));
  for (auto _ : state) {
    LayoutTable merged;
    for (const LayoutTable& t : in) {
      for (const StructLayout& s : t.structs)
        merge_layout(merged, LayoutTable{{s}, {}, {}});
      for (const GlobalLayout& g : t.globals)
        merge_layout(merged, LayoutTable{{}, {g}, {}});
      merge_layout(merged, LayoutTable{{}, {}, t.handlers});
    }
    benchmark::DoNotOptimize(merged);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PerEntity)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
