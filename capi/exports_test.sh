#!/usr/bin/env bash
# Checks that libtessera.so exports tess_* functions and nothing else.
set -euo pipefail
lib="$1"
defined=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep -vE '^TESSERA_[0-9]+$' || true)
if [ -z "$defined" ]; then
  echo "FAIL: $lib exports no symbols"; exit 1
fi
bad=$(printf '%s\n' "$defined" | grep -v '^tess_' || true)
if [ -n "$bad" ]; then
  echo "FAIL: $lib exports symbols outside tess_*:"; printf '%s\n' "$bad" | head -20; exit 1
fi
for sym in tess_runtime_init tess_runtime_finalize tess_placement_parse tess_layout_create tess_last_error_message \
    tess_tensor_from_host tess_tensor_to_dlpack tess_op_call_apply tess_add tess_explanation_last \
    tess_boxing_run tess_boxing_plan_create tess_boxing_plan_string tess_comm_allreduce \
    tess_bucketed_allreducer_create tess_bucketed_allreducer_run tess_comm_set_collective_timeout \
    tess_comm_collective_timeout; do
  # A here-string, not a pipe: grep -q exits at the first match, and under pipefail the
  # writer's SIGPIPE would then fail the check at random.
  grep -qx "$sym" <<<"$defined" || { echo "FAIL: $sym is not exported"; exit 1; }
done
echo "PASS: $(printf '%s\n' "$defined" | wc -l) symbols, all tess_*"
