#!/usr/bin/env bash
# Wrapper for bench/compare.py: raises the open-file limit in the shell too (for anything the
# script starts through a shell) and passes every argument through. See compare.py --help.
set -euo pipefail
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec python3 "$(dirname "$0")/compare.py" "$@"
