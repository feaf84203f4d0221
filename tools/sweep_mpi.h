// The MPI part of `lanaikit sweep` (docs/sweep.md): when mpirun started this process,
// every rank runs its shard of the points and rank 0 gathers the outcomes and writes the
// merged files. Only tools/sweep_mpi.cpp includes mpi.h and links MPI (CMake
// find_package(MPI COMPONENTS C)); without MPI the build uses tools/sweep_mpi_none.cpp,
// whose MpiWorld says MPI is unavailable.
#pragma once

#include <string>

namespace lanaikit::tools::sweep {

// True when lanaikit was built with MPI.
bool mpi_built();

// True when a launcher started this process as an MPI rank: Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE; PMI_SIZE and PMIX_RANK cover MPICH's and PMIx launchers.
bool launched_by_mpi();

class MpiWorld {
public:
  // MPI_Init_thread (MPI_THREAD_FUNNELED). Throws std::runtime_error when built without
  // MPI.
  MpiWorld(int* argc, char*** argv);
  ~MpiWorld(); // MPI_Finalize
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank's `mine`, concatenated in rank order, on rank 0 ("" on the others):
  // MPI_Gather of the lengths, then MPI_Gatherv of the bytes.
  std::string gather(const std::string& mine);
  // Rank 0's `value`, on every rank (MPI_Bcast).
  int broadcast(int value);

private:
  int rank_ = 0, size_ = 1;
};

} // namespace lanaikit::tools::sweep
