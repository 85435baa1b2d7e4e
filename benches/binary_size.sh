#!/usr/bin/env bash
# What the repository map's grammars (the `repo-map` feature) add to the
# stripped static release binary: it is built as scripts/build-dist.sh
# builds it, then again without the feature, and the difference may be at
# most 12 MiB (issue 15); the binary without them must stay under the
# 15 MiB of issue 6. The first build is the one build-dist.sh already
# made, so in CI only the second costs time. Prints both sizes and the
# difference; exits 1 past either budget.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-gnu
export RUSTFLAGS="-C target-feature=+crt-static --cfg getrandom_backend=\"linux_getrandom\""
limit=$((12 * 1024 * 1024))
core_limit=$((15 * 1024 * 1024))
binary="target/$target/release/agent"

cargo build --release --locked --target "$target"
with=$(stat -c %s "$binary")
cargo build --release --locked --target "$target" --no-default-features
without=$(stat -c %s "$binary")
# Leave the default binary in place for whatever runs next (a re-link of
# what is built already, no compile).
cargo build --release --locked --target "$target"

delta=$((with - without))
mib() { awk -v bytes="$1" 'BEGIN { printf "%.2f MiB", bytes / 1048576 }'; }
echo "with repo-map:    $with bytes ($(mib "$with"))"
echo "without repo-map: $without bytes ($(mib "$without"))"
echo "the grammars add: $delta bytes ($(mib "$delta")); the budget is $(mib "$limit")"
if [ "$delta" -gt "$limit" ]; then
  echo "the repository map's grammars add more than 12 MiB to the binary" >&2
  exit 1
fi
if [ "$without" -ge "$core_limit" ]; then
  echo "the binary without the grammars is not under 15 MiB" >&2
  exit 1
fi
