#!/usr/bin/env bash
# Installs SQLAlchemy 2.0 for the client matrix into tests/clients/python/.sqla2
# (gitignored): Debian bookworm has only 1.4, so this takes the pure-Python
# python3-sqlalchemy of Debian trixie, with the newer typing-extensions it
# needs, from deb.debian.org, checks each .deb against the SHA256 of trixie's
# Packages index and extracts it with dpkg -x. Idempotent: does nothing when
# SQLAlchemy 2 already imports from there. The test runs the program with
# PYTHONPATH=.sqla2/usr/lib/python3/dist-packages under /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")"
dest=.sqla2
site=$dest/usr/lib/python3/dist-packages
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs=(python3-sqlalchemy python3-typing-extensions)

if PYTHONPATH=$site /usr/bin/python3 -c \
  'import sqlalchemy, sys; sys.exit(sqlalchemy.__version__[:2] != "2.")' 2>/dev/null; then
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/Packages.xz" "$mirror/dists/trixie/main/binary-amd64/Packages.xz"
xz -dc "$tmp/Packages.xz" >"$tmp/Packages"
rm -rf "$dest.new"
mkdir -p "$dest.new"
for p in "${pkgs[@]}"; do
  read -r file sum < <(awk -v p="$p" '
    $0 == "Package: " p { on = 1 }
    on && /^Filename: / { f = $2 }
    on && /^SHA256: / { s = $2 }
    on && /^$/ { print f, s; exit }' "$tmp/Packages") || true
  if [ -z "${file:-}" ] || [ -z "${sum:-}" ]; then
    echo "fetch_sqla2: $p not in trixie's Packages" >&2
    exit 1
  fi
  deb=$tmp/$(basename "$file")
  curl -fsSL --retry 3 -o "$deb" "$mirror/$file"
  echo "$sum  $deb" | sha256sum -c --quiet -
  dpkg -x "$deb" "$dest.new"
done
rm -rf "$dest"
mv "$dest.new" "$dest"
PYTHONPATH=$site /usr/bin/python3 -c 'import sqlalchemy; print("SQLAlchemy", sqlalchemy.__version__, "in", "'"$dest"'")'
