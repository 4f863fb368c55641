#!/usr/bin/env bash
# Runs make targets one after the other as named phases, and times each. Ends with a table of the
# phases and their minutes, followed by the summary of the last ctest run, so that the output still
# closes on ctest's own summary line. The first phase that fails stops the run (exit 1), after
# the table of what ran.
#   test/run_phases.sh "LABEL=TARGET" ...
set -uo pipefail
make_cmd=${MAKE:-make}
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

labels=()
minutes=()
results=()
last_ctest_log=""

print_table() {
  local total=0
  echo
  echo "Phase                          Minutes  Result"
  echo "-----------------------------  -------  ------"
  for i in "${!labels[@]}"; do
    printf '%-29s  %7s  %s\n' "${labels[$i]}" "${minutes[$i]}" "${results[$i]}"
  done
  for m in "${minutes[@]}"; do total=$(awk -v a="$total" -v b="$m" 'BEGIN { printf "%.1f", a + b }'); done
  printf '%-29s  %7s\n' "total" "$total"
}

status=0
for phase in "$@"; do
  label=${phase%%=*}
  target=${phase#*=}
  log="$log_dir/${#labels[@]}.log"
  echo "=== phase: $label (make $target)"
  start=$(date +%s.%N)
  "$make_cmd" --no-print-directory "$target" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  end=$(date +%s.%N)
  labels+=("$label")
  minutes+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", (e - s) / 60 }')")
  if grep -q 'tests passed, .* tests failed out of' "$log"; then last_ctest_log=$log; fi
  if [ "$rc" -ne 0 ]; then
    results+=("FAILED (exit $rc)")
    status=1
    break
  fi
  results+=("ok")
done

print_table
if [ -n "$last_ctest_log" ]; then
  echo
  # The last ctest summary, from its "N% tests passed" line to its end.
  sed -n '/tests passed, .* tests failed out of/,$p' "$last_ctest_log"
fi
exit $status
