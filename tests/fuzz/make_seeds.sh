#!/usr/bin/env bash
# Regenerates tests/fuzz/corpus/ (checked in): the binary seeds from the project's own encoders
# (make_fuzz_seeds), the XML seeds from the files flashccl ships (a few small MSCCL programs,
# every topology file) and those in tests/fuzz/seeds/ (hand-written ones, and inputs that once
# failed a harness). Run after a format
# changes:  BUILD=build-fuzz tests/fuzz/make_seeds.sh   (BUILD: a built tests/fuzz project)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$repo/build-fuzz}
corpus=$repo/tests/fuzz/corpus
rm -rf "$corpus"
mkdir -p "$corpus"
"$build/make_fuzz_seeds" "$corpus"
mkdir -p "$corpus/msccl_xml_fuzz" "$corpus/topology_file_fuzz" "$corpus/tuner_table_fuzz"
# Small shipped programs: the three collectives and the three protocols.
for f in allreduce_ring--gpus_2-channels_1-proto_LL allgather_direct--gpus_2-instances_2-proto_LL128 \
         reducescatter_direct--gpus_2-instances_2-proto_LL allgather_ring--gpus_2-channels_8-proto_Simple; do
  cp "$repo/algorithms/$f.xml" "$corpus/msccl_xml_fuzz/"
done
cp "$repo"/topologies/*.xml "$corpus/topology_file_fuzz/"
cp "$repo"/topologies/*.xml "$corpus/tuner_table_fuzz/"
# Hand-written seeds, and inputs that once failed a harness (kept so they run in CI).
for dir in "$repo"/tests/fuzz/seeds/*/; do
  mkdir -p "$corpus/$(basename "$dir")"
  cp "$dir"* "$corpus/$(basename "$dir")/"
done
du -sh "$corpus"
