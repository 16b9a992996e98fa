#!/usr/bin/env bash
# The whole test suite: Rust unit/integration tests, then end-to-end tests that drive a real
# selkied with real clients (sysbench 1.0.20, the mariadb CLI, PyMySQL, mysql-connector-python)
# and compare against a private MariaDB 10.11.
#
# Installs what it needs on a fresh Debian machine. Environment knobs:
#   SELKIE_TEST_FILTER=expr   only pytest tests matching expr (pytest -k)
#   SELKIE_SKIP_RUST=1        skip cargo test (e2e only)
#   SELKIE_STRESS=1           longer variants of the torture tests
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

missing=()
command -v sysbench >/dev/null 2>&1 || missing+=(sysbench)
command -v mariadb >/dev/null 2>&1 || missing+=(mariadb-client)
{ command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; } || missing+=(mariadb-server)
# mysqlclient (Django's MySQL driver, tests/test_django_fresh_project.py) builds against these.
for pkg in libmariadb-dev pkg-config build-essential python3-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y "${missing[@]}" >/dev/null \
    || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y "${missing[@]}" >/dev/null; }
fi
if ! python3 -c "import pymysql, mysql.connector, pytest, matplotlib, django, MySQLdb" >/dev/null 2>&1; then
  echo "== installing Python test dependencies"
  python3 -m pip install --quiet pymysql mysql-connector-python pytest matplotlib "django==5.1.*" mysqlclient
fi
if ! command -v cargo >/dev/null 2>&1; then
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { echo "cargo not found: install Rust with rustup" >&2; exit 1; }

# 1,024-connection sysbench runs and the 4,096-idle-connections test need descriptors.
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# Release builds here carry no debug info: the test binaries link much faster and take a
# fraction of the disk (Cargo.toml's debug = 1 is for profiling with perf). Set it to 1 to
# reuse a local profiling build.
export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-0}"

start=$(date +%s)
# The shape gates run first: they are cheap and a failure says more than a test would.
# rustfmt and clippy come with rustup's default profile; a toolchain without them gets them once.
for tool in rustfmt clippy; do
  cargo "${tool/rustfmt/fmt}" --version >/dev/null 2>&1 || rustup component add "$tool"
done
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== module import cycles (scripts/module_cycles.py)"
python3 scripts/module_cycles.py --summary
echo "== cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets -- -D warnings
if [ "${SELKIE_SKIP_RUST:-0}" != "1" ]; then
  # One build for the binaries and the tests. `--bins` alone resolves features without the
  # dev-dependencies (resolver 2), which turns on fewer features of shared crates (smallvec,
  # serde, getrandom, zerocopy, ...), so a later `cargo test` compiled every workspace crate a
  # second time (docs/testing.md).
  echo "== cargo build --release --bins --tests"
  cargo build --release --workspace --bins --tests
  echo "== cargo test --release"
  cargo test --release --workspace
else
  echo "== cargo build --release --bins"
  cargo build --release --workspace --bins
fi
echo "== end-to-end tests (pytest tests/)"
pytest_args=(-q -p no:cacheprovider --durations=15 tests/)
if [ -n "${SELKIE_TEST_FILTER:-}" ]; then pytest_args+=(-k "$SELKIE_TEST_FILTER"); fi
python3 -m pytest "${pytest_args[@]}"
echo "== all tests passed in $(( $(date +%s) - start ))s"
