/* check(status, what): 0 for TESS_OK, else prints what failed with Tessera's message
 * and returns 1. Shared by this workspace's test programs. */
#ifndef BAZEL_CONSUMER_CHECK_H_
#define BAZEL_CONSUMER_CHECK_H_

#include <stdio.h>

#include "tessera/tessera.h"

static int check(tess_status status, const char* what) {
  if (status == TESS_OK) return 0;
  fprintf(stderr, "%s failed: %s: %s\n", what, tess_status_string(status),
          tess_last_error_message());
  return 1;
}

#endif /* BAZEL_CONSUMER_CHECK_H_ */
