#!/bin/sh
# The Python tests: run.sh BUILD_DIR LIBVMAF_SO SANITIZED(0|1) TEST.py [ARGS...]
# Makes (once) a virtual environment in BUILD_DIR/python-env that sees the system's packages,
# installs ./python into it (again when its sources change) and, for the Ray tests (TEST named
# test_ray*), ray; then runs TEST.py with it, TWINVMAF_LIB pointing at BUILD_DIR's library.
# Exit 77 (ctest: skipped) with a message when Ray cannot be installed or imported, or in the
# sanitized build (its libvmaf.so needs the ASan runtime preloaded into Python: LD_PRELOAD
# of libasan into an interpreter and Ray's workers reports Python's own leaks and
# interceptor clashes, not ours; the C tests cover the library there).
set -u
build=$(cd "$1" && pwd); lib=$2; sanitized=$3; test=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
name=$(basename "$test" .py)
if [ "$sanitized" = 1 ]; then
  echo "SKIP $name: the Python tests do not run in the sanitized build (see $here/run.sh)"
  exit 77
fi
env=$build/python-env
py=$env/bin/python
t0=$(date +%s)
(
  flock 9
  if ! "$py" -c 'import sys' 2>/dev/null; then
    python3 -m venv --system-site-packages "$env" || exit 1
  fi
  stamp=$(cd "$src/python" && find . -name '*.py' -o -name '*.toml' | LC_ALL=C sort | xargs cat | cksum)
  if [ "$(cat "$env/.twinvmaf-stamp" 2>/dev/null)" != "$stamp" ]; then
    # built from a copy: setuptools writes build/ and *.egg-info beside the sources
    rm -rf "$env/src" && cp -R "$src/python" "$env/src" || exit 1
    # without build isolation (no download per build) once setuptools and wheel are there
    "$py" -c 'import setuptools, wheel' 2>/dev/null ||
      "$py" -m pip install -q --disable-pip-version-check setuptools wheel >/dev/null 2>&1
    iso=; "$py" -c 'import setuptools, wheel' 2>/dev/null && iso=--no-build-isolation
    "$py" -m pip install -q --disable-pip-version-check --no-deps $iso "$env/src" \
      >"$env/pip-twinvmaf.log" 2>&1 || { cat "$env/pip-twinvmaf.log"; exit 1; }
    echo "$stamp" > "$env/.twinvmaf-stamp"
  fi
  case $name in test_ray*)
    if ! "$py" -c 'import ray' 2>/dev/null; then
      "$py" -m pip install -q --disable-pip-version-check "$env/src[ray]" \
        >"$env/pip-ray.log" 2>&1 || { tail -5 "$env/pip-ray.log"; exit 77; }
    fi
    "$py" -c 'import ray' 2>/dev/null || exit 77
  esac
) 9>"$build/python-env.lock"
rc=$?
if [ $rc = 77 ]; then
  echo "SKIP $name: ray could not be installed or imported (pip install './python[ray]')"
  exit 77
fi
[ $rc = 0 ] || { echo "FAIL $name: setting up $env failed"; exit 1; }
echo "python environment ready in $(( $(date +%s) - t0 )) s ($env)"
export TWINVMAF_LIB="$lib"
export PYTHONDONTWRITEBYTECODE=1
exec "$py" "$here/$test" "$@"
