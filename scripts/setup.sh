#!/usr/bin/env bash
# Installs what lanaikit needs on Debian 12, as root. Idempotent: does nothing when every
# package is already present.
set -euo pipefail
packages=(
  build-essential cmake ninja-build
  llvm-14-dev clang-14 libclang-rt-14-dev
  libboost-dev liblua5.4-dev libxxhash-dev nlohmann-json3-dev libcli11-dev
  googletest libgtest-dev libbenchmark-dev
  valgrind python3 pkg-config
  tshark
  openmpi-bin libopenmpi-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
