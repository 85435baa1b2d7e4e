#!/usr/bin/env bash
# Proves that the Dockerfile builds and that the image works, on a Debian
# bookworm machine with no Docker engine and no Docker Hub: only crates.io and
# deb.debian.org need to be reachable. Runs as root.
#
#   sudo scripts/check-image.sh
#
# What it does (each step is skipped or cheap when already done):
#   0. installs buildah and debootstrap from apt (daemonless OCI tools);
#   1. makes docker.io/library/debian:bookworm-slim locally from a debootstrap
#      minbase rootfs, because Docker Hub cannot be reached;
#   2. makes docker.io/library/rust:1.95-bookworm locally on top of it, with
#      the C toolchain the official image has and this machine's own Rust
#      1.95 toolchain (from rustup), laid out like the official rust image;
#   3. builds the project's Dockerfile, unchanged, with `buildah bud`, never
#      pulling (the builder stage reaches crates.io over the host network);
#   4. checks the image: static binary, non-root user `agent`, the state
#      folder with mode 0700, and an offline scripted session (the scripted
#      model) that runs one shell command through the exec tool and ends with
#      `session-end` and exit status 0.
# Any failure exits non-zero.
#
# Environment (all optional):
#   WORK           working folder for rootfs and logs    (/var/tmp/agent-image)
#   IMAGE          tag of the built image                (localhost/agent-sandbox:check)
#   MIRROR         Debian mirror for debootstrap         (http://deb.debian.org/debian)
#   EXTRA_CA_DIR   extra CA certificates (*.crt) the builder base trusts
#                                                        (/usr/local/share/ca-certificates)
#   RUST_TOOLCHAIN host toolchain folder to copy         ($RUSTUP_HOME or ~/.rustup,
#                                                          toolchains/1.95.0-x86_64-unknown-linux-gnu,
#                                                          else .../stable-... if it is 1.95)
#   REBUILD_BASES=1  rebuild both base images even if present
#   NO_CACHE=1       build the Dockerfile without buildah's layer cache
#   BUILDAH_ISOLATION  how RUN steps are isolated           (chroot, see below)
#   STORAGE_DRIVER     buildah's storage driver; set vfs where overlay fails
#
# Images live in buildah's store (/var/lib/containers/storage). Each build of
# a changed tree leaves its untagged stage images (the builder is ~1.6 GB) as
# cache; `buildah rmi --prune` frees them. The image is built from the working
# tree as it is, uncommitted edits included.
#
# Commands in single quotes run in the image and expand there.
# shellcheck disable=SC2016
set -euo pipefail

# buildah's default OCI isolation starts RUN steps with crun, which fails in
# this kind of container ("cgroups in hybrid mode not supported"): chroot
# isolation needs no cgroups. It only allows the host network, so the image's
# offline checks below run buildah inside `unshare --net` (no network at all).
export BUILDAH_ISOLATION=${BUILDAH_ISOLATION:-chroot}

repo=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/var/tmp/agent-image}
IMAGE=${IMAGE:-localhost/agent-sandbox:check}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
EXTRA_CA_DIR=${EXTRA_CA_DIR:-/usr/local/share/ca-certificates}
SLIM=docker.io/library/debian:bookworm-slim
RUST=docker.io/library/rust:1.95-bookworm
RUST_VERSION=1.95.0
TRIPLE=x86_64-unknown-linux-gnu

log() { printf '\n== %s: %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'check-image: FAIL: %s\n' "$*" >&2; exit 1; }
pass() { printf 'check-image: ok: %s\n' "$*"; }

[ "$(id -u)" = 0 ] || die "run as root (buildah mounts and chroots)"
mkdir -p "$WORK"

# Containers started by this script, removed on any exit so that a failed run
# leaves no working container behind.
containers=()
cleanup() {
  local c
  for c in "${containers[@]}"; do
    buildah umount "$c" >/dev/null 2>&1 || true
    buildah rm "$c" >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT
new_container() { # image -> $ctr (pull=never: the names are local)
  ctr=$(buildah from --pull=never "$1")
  containers+=("$ctr")
}
have_image() { buildah inspect --type image "$1" >/dev/null 2>&1; }

# --- 0. Tools ----------------------------------------------------------------
# buildah builds and runs OCI images without a daemon; debootstrap makes a
# Debian rootfs straight from the Debian archive, replacing Docker Hub.
need=()
command -v buildah >/dev/null || need+=(buildah)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi
buildah --version

# --- 1. debian:bookworm-slim -------------------------------------------------
# The sandbox stage's base. A minbase debootstrap is the same Debian release
# and package set as the official slim image; the dpkg and apt settings below
# are those of the official image (no docs, man pages or locales; no apt
# caches), so `apt-get install` in the Dockerfile behaves the same.
build_slim() {
  local rootfs=$WORK/slim-rootfs c mnt
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; die "debootstrap failed (log: $WORK/debootstrap.log)"; }
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
# The "slim" variant: files unneeded in containers are not installed.
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  printf 'Acquire::Languages "none";\n' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
  # The official image's sources: release, updates and security.
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # What the slim image leaves out, removed after the fact.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log \
    "$rootfs"/usr/share/info/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*
  find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
  find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
  # The host's resolv.conf and hostname are per-container files; not baked in.
  : >"$rootfs/etc/resolv.conf"
  : >"$rootfs/etc/hostname"

  c=$(buildah from scratch)
  containers+=("$c")
  mnt=$(buildah mount "$c")
  tar -C "$rootfs" -cf - . | tar -C "$mnt" --numeric-owner -xpf -
  buildah umount "$c" >/dev/null
  buildah config --os linux --arch amd64 --cmd bash \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$c"
  buildah commit --rm "$c" "$SLIM" >/dev/null
  containers=("${containers[@]/$c}")
  rm -rf "$rootfs"
}

# --- 2. rust:1.95-bookworm ---------------------------------------------------
# The builder stage's base. The official image is buildpack-deps:bookworm
# (gcc, make, git, ...) plus rustup with RUSTUP_HOME=/usr/local/rustup,
# CARGO_HOME=/usr/local/cargo and /usr/local/cargo/bin on PATH. The Rust
# toolchain is copied from this machine's rustup (it cannot be downloaded:
# static.rust-lang.org is not reachable); its docs are left out.
find_toolchain() {
  local home=${RUSTUP_HOME:-$HOME/.rustup} t
  for t in ${RUST_TOOLCHAIN:-} "$home/toolchains/$RUST_VERSION-$TRIPLE" "$home/toolchains/stable-$TRIPLE"; do
    [ -x "$t/bin/rustc" ] || continue
    if "$t/bin/rustc" -V | grep -q "^rustc $RUST_VERSION "; then
      readlink -f "$t"
      return
    fi
  done
  die "no Rust $RUST_VERSION toolchain for $TRIPLE found (set RUST_TOOLCHAIN)"
}
find_rustup() {
  local r
  for r in "${CARGO_HOME:-$HOME/.cargo}/bin/rustup" "$(command -v rustup || true)"; do
    [ -n "$r" ] && [ -x "$r" ] && { readlink -f "$r"; return; }
  done
  die "no rustup binary found"
}
build_rust() {
  local toolchain rustup_bin c mnt t
  toolchain=$(find_toolchain)
  rustup_bin=$(find_rustup)
  echo "toolchain: $toolchain ($("$toolchain/bin/rustc" -V))"
  new_container "$SLIM"
  c=$ctr
  # Packages of buildpack-deps that a Rust build uses: the C compiler and
  # linker (ring's C code, crt-static linking), make, git, readelf and file
  # (scripts/build-dist.sh), pkg-config, curl and CA roots.
  buildah run --network host "$c" -- sh -ec '
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      ca-certificates curl git gcc libc6-dev make binutils file pkg-config xz-utils procps
    rm -rf /var/lib/apt/lists/*'
  mnt=$(buildah mount "$c")
  # Where this machine's HTTPS egress goes through a TLS-inspecting proxy, its
  # CA is in $EXTRA_CA_DIR; without it the builder's cargo fails on crates.io
  # with "self-signed certificate in certificate chain". Only the builder
  # base gets it; the sandbox image is not changed.
  if compgen -G "$EXTRA_CA_DIR/*.crt" >/dev/null; then
    cp "$EXTRA_CA_DIR"/*.crt "$mnt/usr/local/share/ca-certificates/"
    unshare --net buildah run --network host "$c" -- update-ca-certificates
  fi
  t=$mnt/usr/local/rustup/toolchains/$RUST_VERSION-$TRIPLE
  mkdir -p "$t" "$mnt/usr/local/cargo/bin"
  tar -C "$toolchain" --exclude=./share/doc -cf - . | tar -C "$t" -xpf -
  install -m 0755 "$rustup_bin" "$mnt/usr/local/cargo/bin/rustup"
  for p in cargo cargo-clippy cargo-fmt clippy-driver rustc rustdoc rustfmt rust-gdb rust-gdbgui rust-lldb; do
    ln -sf rustup "$mnt/usr/local/cargo/bin/$p"
  done
  cat >"$mnt/usr/local/rustup/settings.toml" <<EOF
version = "12"
default_toolchain = "$RUST_VERSION-$TRIPLE"
profile = "minimal"
auto_self_update = "disable"

[overrides]
EOF
  chmod -R a+w "$mnt/usr/local/rustup" "$mnt/usr/local/cargo"
  buildah umount "$c" >/dev/null
  buildah config \
    --env RUSTUP_HOME=/usr/local/rustup \
    --env CARGO_HOME=/usr/local/cargo \
    --env PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env RUST_VERSION=$RUST_VERSION "$c"
  # The toolchain answers through the rustup proxies, with no network.
  unshare --net buildah run --network host "$c" -- sh -ec 'rustc -V; cargo -V; rustup show active-toolchain'
  buildah commit --rm "$c" "$RUST" >/dev/null
  containers=("${containers[@]/$c}")
}

for pair in "$SLIM:build_slim" "$RUST:build_rust"; do
  name=${pair%:*} fn=${pair##*:}
  if [ "${REBUILD_BASES:-0}" != 1 ] && have_image "$name"; then
    log "base $name present, skipped"
    continue
  fi
  log "building base $name"
  start=$SECONDS
  "$fn"
  have_image "$name" || die "base $name was not made"
  log "base $name made in $((SECONDS - start)) s"
done

# --- 3. Build the Dockerfile ---------------------------------------------------
# --pull=never: both FROM names must resolve to the local bases above, never
# to Docker Hub. --network host: the builder's `cargo build --locked` fetches
# crates from crates.io. --layers: a rerun with an unchanged context is quick.
# .dockerignore leaves out .git, so the revision `agent --version` shows is
# passed in as a build argument (checked below).
revision=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
log "building $IMAGE from $repo/Dockerfile (revision $revision)"
start=$SECONDS
cache=(--layers)
[ "${NO_CACHE:-0}" = 1 ] && cache+=(--no-cache)
buildah bud --pull=never --network host --force-rm "${cache[@]}" \
  --build-arg AGENT_BUILD_REVISION="$revision" \
  -f "$repo/Dockerfile" -t "$IMAGE" "$repo" 2>&1 | tee "$WORK/build.log"
[ "${PIPESTATUS[0]}" = 0 ] || die "image build failed (log: $WORK/build.log)"
log "image built in $((SECONDS - start)) s"
buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$IMAGE"

# --- 4. Check the image --------------------------------------------------------
log "checking $IMAGE"
cfg=$(buildah inspect --type image --format '{{.OCIv1.Config.User}}|{{.OCIv1.Config.WorkingDir}}|{{.OCIv1.Config.Cmd}}' "$IMAGE")
echo "config: user|workdir|cmd = $cfg"
[ "${cfg%%|*}" = agent ] || die "image user is '${cfg%%|*}', not agent"
pass "image runs as user agent"

new_container "$IMAGE"
c=$ctr
mnt=$(buildah mount "$c")

# The binary: static (no interpreter, no needed library), at the fixed path.
bin=$mnt/usr/local/bin/agent
[ -x "$bin" ] || die "/usr/local/bin/agent missing or not executable"
file "$bin" 2>/dev/null || true
if readelf -l "$bin" | grep -q "Requesting program interpreter"; then die "agent has an interpreter"; fi
if readelf -d "$bin" | grep -q NEEDED; then die "agent needs shared libraries"; fi
pass "/usr/local/bin/agent is static ($(stat -c %s "$bin") bytes)"

# Commands below run inside the image as the image's user (agent), in an
# empty network namespace: the session must not need a network.
run_in() { unshare --net buildah run --network host "$c" -- "$@"; }
run_in sh -c 'cat /proc/net/dev' | grep -qv -E '^ *(lo|Inter|face)' \
  && die "the checks' namespace has a network interface besides lo"

run_in sh -c 'id; echo "AGENT_STATE_DIR=$AGENT_STATE_DIR"; pwd'
[ "$(run_in id -un)" = agent ] || die "commands do not run as agent"
[ "$(run_in id -u)" != 0 ] || die "agent is root"
pass "runs as non-root user agent"

state=$(run_in sh -c 'stat -c "%a %U %n" "$AGENT_STATE_DIR"')
echo "state dir: $state"
case $state in
  "700 agent /var/lib/agent") pass "AGENT_STATE_DIR is 0700, owned by agent" ;;
  *) die "state dir is '$state', want '700 agent /var/lib/agent'" ;;
esac

version=$(run_in agent --version)
echo "$version"
case $version in
  *"+$revision "*) pass "agent --version names revision $revision" ;;
  *) die "agent --version says '$version', not revision $revision" ;;
esac
run_in sh -c 'for t in bash git rg ps; do command -v $t >/dev/null || { echo "missing $t"; exit 1; }; done' \
  || die "a tool of the sandbox is missing"
pass "bash, git, rg, ps present"

# An offline session: the scripted model asks for one exec of a shell command,
# then answers. The last event must be session-end and the exit status 0.
cat >"$WORK/session-script.json" <<'EOF'
{
  "turns": [
    {"text": "Let me run a command.",
     "tool_calls": [{"name": "exec", "args": {"command": "echo hello-from-$(id -un); uname -s"}}]},
    {"text": "The command ran."}
  ]
}
EOF
buildah copy --chown agent:agent "$c" "$WORK/session-script.json" /home/agent/session-script.json >/dev/null
set +e
run_in agent --script /home/agent/session-script.json --work-dir /home/agent/workspace \
  --prompt "Run a command" </dev/null >"$WORK/session.jsonl" 2>"$WORK/session.stderr"
status=$?
set -e
echo "session exit status: $status; events: $(wc -l <"$WORK/session.jsonl")"
grep '"type":"tool-result"' "$WORK/session.jsonl" || true
tail -n 1 "$WORK/session.jsonl"
[ "$status" = 0 ] || { cat "$WORK/session.stderr" >&2; die "session exited $status"; }
tail -n 1 "$WORK/session.jsonl" | grep -q '"type":"session-end"' || die "last event is not session-end"
tail -n 1 "$WORK/session.jsonl" | grep -q '"exit_reason":"completed"' || die "session did not complete"
grep '"type":"tool-result"' "$WORK/session.jsonl" | grep '"name":"exec"' | grep '"ok":true' \
  | grep -q 'hello-from-agent' || die "the exec tool did not run the command as agent"
pass "scripted session: exec ran as agent, session-end, exit 0"

# The README's demo, in the image: a sample project, a command and a report.
buildah copy --chown agent:agent "$c" "$repo/examples/demo" /home/agent/demo >/dev/null
run_in rm -f /home/agent/demo/project/report.md
set +e
run_in agent --script /home/agent/demo/script.json --work-dir /home/agent/demo/project \
  --prompt "Summarise the suspicious readings" --format text </dev/null >"$WORK/demo.txt" 2>&1
status=$?
set -e
tail -n 5 "$WORK/demo.txt"
[ "$status" = 0 ] || die "README demo exited $status (output: $WORK/demo.txt)"
run_in test -s /home/agent/demo/project/report.md || die "README demo wrote no report.md"
pass "README demo session: exit 0, report.md written"

# Sessions journal into the state folder, which must stay private.
run_in sh -c 'ls -la "$AGENT_STATE_DIR"; stat -c "%a" "$AGENT_STATE_DIR"' | tail -n 3

log "all checks passed: $IMAGE"
