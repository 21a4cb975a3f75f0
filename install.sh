#!/bin/sh
# fleetcom installer:  curl -fsSL https://github.com/fleetcom/fleetcom/releases/latest/download/install.sh | sh
#
# Downloads the fleetcom binary for this OS and architecture and the release's SHA256SUMS, checks the
# binary against it, checks that it runs, and only then moves it into place in one rename: a failed
# download, a checksum mismatch or a binary that does not run leaves nothing installed.
#
#   FLEETCOM_INSTALL_BASE  where fleetcom-<os>-<arch> and SHA256SUMS are (https://, http:// or file://)
#   FLEETCOM_INSTALL_DIR   where the binary goes (default ~/.local/bin)
set -eu

base="${FLEETCOM_INSTALL_BASE:-https://github.com/fleetcom/fleetcom/releases/latest/download}"
base="${base%/}"
install_dir="${FLEETCOM_INSTALL_DIR:-${HOME:?HOME is not set; set FLEETCOM_INSTALL_DIR}/.local/bin}"

work_dir=""
partial=""
created_dir=""

say() {
  printf 'fleetcom install: %s\n' "$*" >&2
}

cleanup() {
  if [ -n "$partial" ]; then rm -f "$partial"; fi
  if [ -n "$work_dir" ]; then rm -rf "$work_dir"; fi
  # Directories this script made and left empty are part of "nothing installed".
  if [ -n "$created_dir" ]; then
    dir="$install_dir"
    while rmdir "$dir" 2>/dev/null && [ "$dir" != "$created_dir" ]; do dir="$(dirname "$dir")"; done
  fi
}

# The outermost directory `mkdir -p DIR` would create.
first_missing_dir() {
  dir="$1"
  missing=""
  while [ ! -d "$dir" ]; do
    missing="$dir"
    dir="$(dirname "$dir")"
  done
  echo "$missing"
}

fail() {
  say "error: $*; nothing was installed"
  exit 1
}

detect_os() {
  case "$(uname -s)" in
    Linux) echo linux ;;
    Darwin) echo darwin ;;
    *) fail "unsupported operating system $(uname -s) (fleetcom ships for Linux and macOS)" ;;
  esac
}

detect_arch() {
  arch="$(uname -m)"
  # An x86_64 shell under Rosetta on Apple silicon should still get the native binary.
  if [ "$arch" = x86_64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    arch=arm64
  fi
  case "$arch" in
    x86_64 | amd64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) fail "unsupported architecture $arch (fleetcom ships for x86_64 and arm64)" ;;
  esac
}

download() {
  url="$1"
  out="$2"
  case "$url" in
    file://*)
      cp "${url#file://}" "$out" 2>/dev/null || fail "cannot read ${url#file://}"
      ;;
    *)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 2 -o "$out" "$url" || fail "download of $url failed"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$out" "$url" || fail "download of $url failed"
      else
        fail "need curl or wget to download $url"
      fi
      ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    fail "need sha256sum, shasum or openssl to verify the download"
  fi
}

# The checksum recorded for NAME in a sha256sum-style file ("<hex>  <name>" or "<hex> *<name>").
expected_sha256() {
  awk -v name="$2" '$2 == name || $2 == "*" name { print $1; exit }' "$1"
}

path_advice() {
  case ":${PATH:-}:" in
    *":$install_dir:"*) ;;
    *)
      say "$install_dir is not on your PATH; add it with:"
      # shellcheck disable=SC2016 # the line is printed for the user's shell profile, unexpanded
      printf '    export PATH="%s:$PATH"    # in ~/.profile, ~/.bashrc or ~/.zshrc\n' "$install_dir" >&2
      say "(fish: fish_add_path $install_dir)"
      ;;
  esac
}

main() {
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  os="$(detect_os)"
  arch="$(detect_arch)"
  asset="fleetcom-$os-$arch"
  work_dir="$(mktemp -d 2>/dev/null || mktemp -d -t fleetcom)" || fail "cannot create a temporary directory"

  say "downloading $asset from $base"
  download "$base/SHA256SUMS" "$work_dir/SHA256SUMS"
  expected="$(expected_sha256 "$work_dir/SHA256SUMS" "$asset")"
  [ -n "$expected" ] || fail "$base/SHA256SUMS has no entry for $asset"

  created_dir="$(first_missing_dir "$install_dir")"
  mkdir -p "$install_dir" 2>/dev/null || fail "cannot create $install_dir"
  # Downloaded next to its final name, so the last step is a rename within one file system.
  partial="$(mktemp "$install_dir/.fleetcom.XXXXXX" 2>/dev/null)" || fail "cannot write to $install_dir"
  download "$base/$asset" "$partial"

  actual="$(sha256_of "$partial")"
  [ "$actual" = "$expected" ] || fail "checksum mismatch for $asset (expected $expected, got $actual): the download is corrupt or was tampered with"

  chmod 755 "$partial"
  version="$("$partial" --version 2>/dev/null)" || fail "the downloaded $asset does not run on this machine"

  mv -f "$partial" "$install_dir/fleetcom" || fail "cannot move the binary into $install_dir"
  partial=""
  created_dir=""
  say "installed fleetcom $version to $install_dir/fleetcom"
  path_advice
  say "shell completions: see fleetcom completions --help"
}

main "$@"
