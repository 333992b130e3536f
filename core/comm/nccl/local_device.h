// Which CUDA device a rank drives: the one the program chose at init, else
// local_rank % device_count (DESIGN.md), where the
// local rank is the rank's index among the world's ranks on its host.
//
// The local rank comes from Open MPI's launcher (OMPI_COMM_WORLD_LOCAL_RANK), not from
// an MPI_COMM_TYPE_SHARED split: the split is collective over the whole world, while a
// device is needed when a placement's communicator is created, which only that
// placement's ranks take part in. Open MPI numbers a host's ranks in world-rank order,
// which is the order the split would give.
#ifndef TESSERA_CORE_COMM_NCCL_LOCAL_DEVICE_H_
#define TESSERA_CORE_COMM_NCCL_LOCAL_DEVICE_H_

#include <cstdint>

#include "core/common/status.h"

namespace tessera::comm {

// OMPI_COMM_WORLD_LOCAL_RANK when set and not empty (INVALID_ARGUMENT naming the variable
// and its value when it is not an integer >= 0, OUT_OF_RANGE above INT32_MAX); 0 when
// unset in a world of one rank (a process started without mpirun); FAILED_PRECONDITION
// when unset in a larger world. Needs InitWorld. Reads the environment on every call, so
// it is not for hot paths.
Result<int32_t> LocalRank();

// The device the process chose (device::SelectedDevice, from tess_runtime_init_options),
// checked like CheckDevice; else LocalRank() % the number of visible CUDA devices. UNAVAILABLE "no
// CUDA device visible" on a machine without a GPU (or without a driver).
Result<int> DefaultDevice();

// OK when `device` names a visible CUDA device. INVALID_ARGUMENT for a negative one
// (checked first, with or without a GPU); then UNAVAILABLE "no CUDA device visible", or
// OUT_OF_RANGE naming the device and the count.
Status CheckDevice(int device);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_LOCAL_DEVICE_H_
