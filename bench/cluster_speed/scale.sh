#!/bin/sh
# CPU time per simulated message as the cluster grows (issue 16): bench/cluster_speed/scale.lua
# (raw messages, uniform random destinations) for 2, 4, 8, 16 and 64 nodes, each in its own
# process, with its peak RSS; then the RSS growth per node between the sizes.
#
#   sh bench/cluster_speed/scale.sh [LANAIKIT] [COUNT_PER_NODE]
set -e
lanaikit=${1:-build/tools/lanaikit}
count=${2:-400}
printf '| nodes | messages | simulated us | guest insns | dozed | batches | events | CPU s | CPU us / message | peak RSS MB |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for n in 2 4 8 16 64; do
  /usr/bin/time -f '%M' -o /tmp/scale_rss.$$ "$lanaikit" run bench/cluster_speed/scale.lua --nodes "$n" --count "$count" > /tmp/scale_out.$$
  awk -v rss="$(cat /tmp/scale_rss.$$)" '
    /^nodes/ { nodes = $2; msgs = $4; sim = $6; insns = $10; events = $12 }
    /^cpu_s/ { cpu = $2; per = $4; dozed = $8; batches = $10 }
    END { printf "| %d | %d | %.0f | %d | %d | %d | %d | %.2f | %.1f | %.1f |\n", nodes, msgs, sim, insns, dozed, batches, events, cpu, per, rss / 1024 }' /tmp/scale_out.$$
done
rm -f /tmp/scale_rss.$$ /tmp/scale_out.$$
