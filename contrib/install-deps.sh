#!/usr/bin/env bash
# Installs every build, run and test dependency of slurm-supervisor from Debian 12's packages.
# Idempotent and non-interactive: packages already present are left alone, so a second run
# costs one `dpkg-query`. Must run as root (or with sudo available).
#
#   contrib/install-deps.sh            build + test + dev cluster + example training job
#   WITH_DBD=1 contrib/install-deps.sh also slurmdbd and MariaDB (accounting history, optional)
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake pkg-config clang-format shellcheck
  # libraries the code links (see doc/development.md "Dependencies")
  libslurm-dev libsqlite3-dev libcurl4-openssl-dev nlohmann-json3-dev libspdlog-dev
  libcli11-dev libexpected-dev libre2-dev libtomlplusplus-dev libsystemd-dev libmunge-dev
  libmicrohttpd-dev
  # tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev sqlite3 hyperfine
  # the local Slurm cluster (contrib/dev-cluster)
  slurm-wlm slurmctld slurmd slurm-client munge iproute2 procps
  # the example training job (contrib/examples) and the loopback SMTP server for tests
  python3 python3-torch python3-aiosmtpd
  # a real Prometheus and Pushgateway for the node-evidence tests and bench (started by the
  # tests on loopback ports; the packages' own services are not used)
  prometheus prometheus-pushgateway
)
# contrib/check-style.sh and check-tidy.sh pin Debian 12's clang-format-14 and clang-tidy-14
# (later releases lay code out and check differently); elsewhere `clang-format` is enough to
# edit with. On Debian 12 also clang and its sanitizer runtimes, for the sanitizer and fuzz
# build (contrib/test-sanitizers.sh, fuzz/run.sh), which CI runs there.
if apt-cache show clang-format-14 clang-tidy-14 libclang-rt-14-dev >/dev/null 2>&1; then
  packages+=(clang-format-14 clang-tidy-14 clang libclang-rt-14-dev)
  # the dashboard's browser test (tests/integration/dashboard_browser_test.cpp), which CI runs
  # on Debian 12: a real chromium driven through chromedriver, and tidy to validate the page
  packages+=(chromium chromium-driver python3-selenium tidy fonts-dejavu-core)
fi
if [[ "${WITH_DBD:-0}" == 1 ]]; then
  packages+=(slurmdbd mariadb-server)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=()
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
