#!/usr/bin/env bash
# Builds dist/agent: one fully static x86_64 Linux binary (glibc with
# crt-static, rustls with bundled roots, no other shared library). The
# explicit --target keeps RUSTFLAGS away from proc-macro crates, which cannot
# be built static; getrandom's linux backend needs no /dev in the sandbox.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-gnu
export RUSTFLAGS="-C target-feature=+crt-static --cfg getrandom_backend=\"linux_getrandom\""
cargo build --release --locked --target "$target"
mkdir -p dist
cp "target/$target/release/agent" dist/agent
echo "dist/agent: $(stat -c %s dist/agent) bytes"
if command -v file >/dev/null; then file dist/agent; fi
# A static binary has no interpreter and no needed libraries.
if readelf -l dist/agent | grep -q "Requesting program interpreter"; then
  echo "dist/agent is not static" >&2
  exit 1
fi
if readelf -d dist/agent | grep -q NEEDED; then
  echo "dist/agent needs shared libraries:" >&2
  readelf -d dist/agent | grep NEEDED >&2
  exit 1
fi
echo "dist/agent is statically linked"
