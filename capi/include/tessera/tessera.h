/*
 * Tessera C API: the stable surface of libtessera.so.
 *
 * This umbrella header includes every module header; each of them also compiles
 * alone. Conventions (status, out-params, ownership, strings, threads) are stated
 * in <tessera/common.h>. The DLPack structs are in <tessera/dlpack.h> (or the
 * official <dlpack/dlpack.h>); <tessera/tensor.h> only forward-declares them.
 */
#ifndef TESSERA_TESSERA_H_
#define TESSERA_TESSERA_H_

/* Module order, lowest first: the order bindings/tessera.i %includes them in and the
 * amalgamated header pastes them in. Keep it; do not sort. */
/* clang-format off */
#include "tessera/common.h"
#include "tessera/version.h"
#include "tessera/status.h"
#include "tessera/runtime.h"
#include "tessera/placement.h"
#include "tessera/sbp.h"
#include "tessera/layout.h"
#include "tessera/dtype.h"
#include "tessera/infer.h"
#include "tessera/tensor.h"
#include "tessera/ops.h"
#include "tessera/boxing.h"
#include "tessera/comm.h"
#include "tessera/plan.h"
#include "tessera/memory.h"
#include "tessera/serve.h"
#include "tessera/autograd.h"
#include "tessera/optim.h"
#include "tessera/checkpoint.h"
/* clang-format on */

#endif /* TESSERA_TESSERA_H_ */
