// MPI for `lanaikit sweep` (tools/sweep_mpi.h): the one file that includes mpi.h.
#include "tools/sweep_mpi.h"

#define OMPI_SKIP_MPICXX 1 // the C API only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace lanaikit::tools::sweep {

bool mpi_built() { return true; }

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

MpiWorld::MpiWorld(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

std::string MpiWorld::gather(const std::string& mine) {
  if (mine.size() > size_t(INT_MAX)) throw std::runtime_error("a rank's outcomes exceed 2 GB");
  const int length = int(mine.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(rank_ == 0 ? size_ : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank_ == 0) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[r] = int(total);
      total += lengths[r];
    }
    if (total > INT_MAX) throw std::runtime_error("the sweep's outcomes exceed 2 GB");
    all.resize(size_t(total));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  return all;
}

int MpiWorld::broadcast(int value) {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

} // namespace lanaikit::tools::sweep
