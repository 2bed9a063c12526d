#!/usr/bin/env bash
# Idempotent setup for a fresh Debian/Ubuntu machine:
#   1. Debian packages of the toolchain (skipped with ATTN_SKIP_APT=1); with --test also what the
#      tests need (Debian's Chromium for the browser tests, python3-torch for the PyTorch twin test,
#      fonts-noto-core for Noto Sans Devanagari: the Hindi page's screenshots and tests show real glyphs;
#      the page itself fetches no fonts);
#      with --peers what `npm run bench:peers` compares against (NumPy on OpenBLAS, PyTorch to export
#      the ONNX graphs),
#   2. Node.js >= 20,
#   3. npm ci when node_modules is missing or older than package-lock.json.
# Quiet on success: one line per step. Safe to run again and again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

APT_PACKAGES=(
  emscripten binaryen xtensor-dev libxsimd-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev cmake ninja-build clang-14 libclang-rt-14-dev
  nodejs npm g++
)
for arg in "$@"; do
  case "$arg" in
    --test) APT_PACKAGES+=(chromium python3-torch python3-numpy fonts-noto-core) ;;
    --peers) APT_PACKAGES+=(python3-numpy libopenblas0-pthread python3-torch) ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

# ---- 1. Debian packages -------------------------------------------------------
# A package counts as present when `dpkg -s` reports it installed, or when an
# installed package provides it (NodeSource's nodejs provides and conflicts with
# npm: asking apt for npm there would try to remove nodejs).
PROVIDED=""   # names provided by installed packages, one a line (filled on first use)
provided_by_installed() {
  if [ -z "$PROVIDED" ]; then
    PROVIDED="$(dpkg-query -W -f='${db:Status-Status}\t${Provides}\n' 2>/dev/null \
      | awk -F'\t' '$1 == "installed" { print $2 }' \
      | tr ',' '\n' | sed -e 's/([^)]*)//g' -e 's/:any//' -e 's/^ *//' -e 's/ *$//' | sort -u)"
    PROVIDED="${PROVIDED:-(none)}"
  fi
  grep -qxF -- "$1" <<<"$PROVIDED"
}
pkg_present() {
  local status
  status="$(dpkg -s "$1" 2>/dev/null | sed -n 's/^Status: //p')" || true
  [ "$status" = "install ok installed" ] || provided_by_installed "$1"
}

apt_step() {
  if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    die "dpkg/apt-get not found: this script sets up Debian/Ubuntu. Install by hand: ${APT_PACKAGES[*]} (and set ATTN_SKIP_APT=1)"
  fi
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    pkg_present "$p" || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    say "apt: all ${#APT_PACKAGES[@]} packages present"
    return
  fi

  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
      sudo=(sudo)
    else
      printf 'setup: missing Debian packages: %s\n' "${missing[*]}" >&2
      printf 'setup: not root and no usable sudo; run this, then run setup again:\n' >&2
      printf '  sudo apt-get update && sudo apt-get install -y %s\n' "${missing[*]}" >&2
      exit 1
    fi
  fi

  say "apt: installing ${missing[*]}"
  local log
  log="$(mktemp "${TMPDIR:-/tmp}/attn-setup-apt.XXXXXX")"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >"$log" 2>&1 ||
     ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >>"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "apt-get failed (full log: $log). Command: ${sudo[*]:+${sudo[*]} }apt-get install -y ${missing[*]}"
  fi
  rm -f "$log"
}

if [ "${ATTN_SKIP_APT:-0}" = "1" ]; then
  say "apt: skipped (ATTN_SKIP_APT=1)"
else
  apt_step
fi

# ---- 2. Node.js >= 20 ---------------------------------------------------------
command -v node >/dev/null 2>&1 || die "node not found on PATH: install Node.js 20 or newer"
command -v npm >/dev/null 2>&1 || die "npm not found on PATH: install npm (it comes with Node.js 20 or newer)"
node_version="$(node -p 'process.versions.node')"
if [ "${node_version%%.*}" -lt 20 ]; then
  die "Node.js $node_version found at $(command -v node), but this project needs Node.js >= 20 \
(Debian 12's own nodejs package is 18). Install Node.js 20 or newer and put it first on PATH."
fi
say "node: v$node_version, npm $(npm --version) (ok, needs >= 20)"

# ---- 3. npm dependencies ------------------------------------------------------
if [ ! -f package-lock.json ]; then
  say "npm: no package-lock.json, creating it (npm install --package-lock-only)"
  npm install --package-lock-only --no-audit --no-fund --loglevel=error >/dev/null
fi
# Number of packages the lockfile installs (0: nothing to install, npm ci creates no node_modules).
lock_packages="$(node -e '
  const lock = JSON.parse(require("fs").readFileSync("package-lock.json", "utf8"));
  const keys = lock.packages ? Object.keys(lock.packages).filter(k => k.includes("node_modules/"))
                            : Object.keys(lock.dependencies || {});
  console.log(keys.length);')"
if [ "$lock_packages" -eq 0 ]; then
  say "npm: no dependencies in package-lock.json, nothing to install"
elif [ -L node_modules ]; then
  # A worktree sharing another checkout's packages: npm ci here would empty that checkout's
  # node_modules through the link. Never install through it; say when it is behind this lockfile.
  if [ ! -f node_modules/.package-lock.json ] || [ node_modules/.package-lock.json -ot package-lock.json ]; then
    say "npm: node_modules is a link to $(readlink node_modules), older than this package-lock.json: not installing through it (run npm ci where it points)"
  else
    say "npm: node_modules (a link to $(readlink node_modules)) up to date ($lock_packages package(s))"
  fi
elif [ ! -f node_modules/.package-lock.json ] || [ node_modules/.package-lock.json -ot package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null || die "npm ci failed"
  say "npm: installed $lock_packages package(s) (npm ci)"
else
  say "npm: node_modules up to date ($lock_packages package(s))"
fi
