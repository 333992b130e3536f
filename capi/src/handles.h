// Definitions of the opaque C handles: each wraps one immutable core value plus
// the text that the *_string getters lend out.
#ifndef TESSERA_CAPI_SRC_HANDLES_H_
#define TESSERA_CAPI_SRC_HANDLES_H_

#include <string>

#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"

struct tess_placement {
  tessera::Placement value;
};

struct tess_nd_sbp {
  tessera::NdSbp value;
  std::string text;
};

struct tess_layout {
  tessera::PhysicalLayout value;
  std::string text;
};

#endif  // TESSERA_CAPI_SRC_HANDLES_H_
