#!/bin/sh
# Decompress the shared clips once into the build tree (the tests' fixture).
set -eu
src="$1/clips"; dst="$2"
mkdir -p "$dst"
for f in "$src"/*.yuv.xz; do
  out="$dst/$(basename "$f" .xz)"
  [ -s "$out" ] || { xz -dc "$f" > "$out.part" && mv "$out.part" "$out"; }
done
