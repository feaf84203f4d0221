// `lanaikit sweep` built without MPI (tools/sweep_mpi.h): CMake found no MPI, so a sweep
// under mpirun explains what is missing instead of running every point on every rank.
#include "tools/sweep_mpi.h"

#include <cstdlib>
#include <stdexcept>

namespace lanaikit::tools::sweep {

bool mpi_built() { return false; }

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

MpiWorld::MpiWorld(int*, char***) {
  throw std::runtime_error("this lanaikit was built without MPI, so it cannot share a sweep between MPI ranks "
                           "(install Debian's openmpi-bin and libopenmpi-dev, as scripts/setup.sh does, and "
                           "configure the build again)");
}

MpiWorld::~MpiWorld() = default;

std::string MpiWorld::gather(const std::string& mine) { return mine; }

int MpiWorld::broadcast(int value) { return value; }

} // namespace lanaikit::tools::sweep
