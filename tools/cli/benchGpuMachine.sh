#!/bin/sh
# sh tools/cli/benchGpuMachine.sh [bench:gpu options]: on a fresh Debian or Ubuntu machine with a GPU, installs what
# npm run bench:gpu needs (Chromium, the Vulkan loader, the project's packages) and runs it.
# docs/performance.md: "Measuring on a GPU".
set -eu
cd "$(dirname "$0")/../.."
if [ ! -x /usr/bin/chromium ] || [ ! -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium libvulkan1
fi
[ -d node_modules ] || npm ci --no-audit --no-fund
exec npm run bench:gpu -- "$@"
