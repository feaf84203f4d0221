#!/usr/bin/env bash
# Builds lanaikit's Debian package from the Release build (cpack, cmake/install.cmake):
# build/lanaikit_<version>_amd64.deb.
#   scripts/package.sh          build the package
#   scripts/package.sh --test   then install it with apt-get (its dependencies come from
#                               Debian), check the installed /usr/bin/lanaikit finds its own
#                               files and prints the build tree's main-job table with the
#                               checkout hidden (tests/tools/install_test.py), and remove it
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && cpack -G DEB >/dev/null)
deb=$(ls -t build/lanaikit_*_amd64.deb | head -1)
echo "package: $deb"
dpkg-deb -f "$deb" Package Version Depends
[ "${1:-}" = "--test" ] || exit 0
sudo_cmd=()
[ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "./$deb" >/dev/null
status=0
python3 tests/tools/install_test.py --lanaikit build/tools/lanaikit --source-dir "$PWD" \
  --build-dir "$PWD/build" --installed /usr/bin/lanaikit || status=$?
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get remove -y -qq lanaikit >/dev/null
exit $status
