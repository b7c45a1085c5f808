#!/usr/bin/env bash
# Install what sslviz and its tests need on a fresh machine (Debian, Python 3.11).
#   bash scripts/install.sh          # package + app
#   bash scripts/install.sh test     # + test tools, torchvision, Fashion-MNIST, Chromium
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-app}"
if [ "$what" = "test" ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    # Real Fashion-MNIST (offline) and a browser for the end-to-end test.
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dataset-fashion-mnist chromium >/dev/null
  else
    echo "install.sh: no root apt-get; Fashion-MNIST and browser tests will be skipped" >&2
  fi
  # torch/torchvision pinned to the releases this machine serves from local files.
  python -m pip install -q -e ".[test,torch]"
else
  python -m pip install -q -e .
fi
# Load the compiled kernels once now: they ship compiled for x86-64 (sslviz/_kernel_cache);
# on other CPUs Numba compiles them here (cached on disk) rather than on the first sweep.
python -c "from sslviz._kernels import warm_up; warm_up()"
# Byte-compile the app's own modules now: where PYTHONDONTWRITEBYTECODE is set (as on this
# machine) Python compiles them from source at every server start (0.1 s of importing
# the app's glue: 1.51-1.59 s against 1.43-1.45 s, `python -X importtime -c "import ui.sidebar"`).
python -m compileall -q sslviz ui pages ./*.py >/dev/null
