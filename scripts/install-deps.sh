#!/usr/bin/env bash
# Installs the Debian packages psched builds, tests and benchmarks with.
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates
  libpmix-dev libopenmpi-dev openmpi-bin
  libhwloc-dev hwloc libevent-dev libsodium-dev
  coinor-libcbc-dev coinor-libclp-dev coinor-libosi-dev coinor-libcoinutils-dev
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-math-dev
  slurm-wlm slurm-client munge
  iproute2 iputils-ping stress-ng procps psmisc
  clang-format clang-tidy-16
  librsvg2-bin
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all packages present"
