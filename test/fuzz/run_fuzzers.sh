#!/bin/sh
# Runs every libFuzzer harness of the clang sanitizer tree (build-asan) for SECONDS each, one after the other,
# starting from the seed corpus in the repository (read only) plus what earlier runs found (kept in
# the build tree). Exits non-zero when any harness reports a finding; the crashing input is left
# in BUILD/fuzz-artifacts/ and the log's tail is printed.
#   test/fuzz/run_fuzzers.sh BUILD SECONDS [HARNESS...]
set -u
build=$1
seconds=$2
shift 2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
harnesses=${*:-"http_request_fuzz list_options_fuzz api_object_fuzz protobuf_fuzz patch_fuzz selector_fuzz kubeconfig_fuzz prometheus_replay_fuzz"}
work="$build/fuzz-work"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

export LSAN_OPTIONS="suppressions=$source_dir/test/sanitizers/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1"

failed=""
for harness in $harnesses; do
  mkdir -p "$work/$harness"
  log="$work/$harness.log"
  # Tokens the mutations splice in: test/fuzz/dict/<harness>.dict, or the JSON one for JSON input.
  dict="$source_dir/test/fuzz/dict/$harness.dict"
  case $harness in api_object_fuzz|patch_fuzz|selector_fuzz) dict="$source_dir/test/fuzz/dict/json.dict" ;; esac
  dict_flag=""
  [ -f "$dict" ] && dict_flag="-dict=$dict"
  # -timeout: one input taking 10 s is a finding (a hang); -rss_limit_mb: so is unbounded memory.
  "$build/test/fuzz/$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $dict_flag \
    -artifact_prefix="$artifacts/$harness-" "$work/$harness" "$source_dir/test/fuzz/corpus/$harness" >"$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if [ "$status" -ne 0 ]; then
    echo "FUZZ $harness: FINDING after ${runs:-?} runs (exit $status); log $log:"
    grep -E "^==[0-9]+==|FUZZ FINDING|runtime error|SUMMARY|Test unit written|Base64" "$log" | head -20
    tail -n 40 "$log"
    failed="$failed $harness"
  else
    echo "fuzz $harness: ${runs:-?} runs in ${seconds}s ($(( ${runs:-0} / seconds )) exec/s), no finding"
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: findings in$failed (reproduce: $build/test/fuzz/HARNESS $artifacts/HARNESS-crash-...)"
  exit 1
fi
