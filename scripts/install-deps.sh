#!/usr/bin/env bash
# Installs the Debian packages psched builds, tests and benchmarks with.
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates
  libpmix-dev libopenmpi-dev openmpi-bin python3-mpi4py
  mpich libmpich-dev libpmi2-0-dev
  libhwloc-dev hwloc libevent-dev libsodium-dev
  coinor-libcbc-dev coinor-libclp-dev coinor-libosi-dev coinor-libcoinutils-dev
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-math-dev
  slurm-wlm slurm-client munge
  iproute2 iputils-ping stress-ng procps psmisc
  libncurses-dev tmux help2man man-db
  clang-format clang-tidy-16
  clang-16 libclang-rt-16-dev
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
# MPICH sits beside Open MPI (tests/mpich builds with mpicc.mpich); the default
# mpicc/mpirun, and so CMake's find_package(MPI), stay Open MPI's. On amd64 Debian
# ranks Open MPI first, but that is a priority, not a promise: pin it.
for alt in mpi mpirun; do
  want=/usr/bin/$([[ $alt == mpi ]] && echo mpicc || echo mpirun).openmpi
  if [[ -e $want && "$(readlink "/etc/alternatives/$alt")" != "$want" ]]; then
    echo "install-deps: $alt pointed away from Open MPI; setting it back"
    update-alternatives --set "$alt" "$want" >/dev/null
  fi
done
echo "install-deps: all packages present"
