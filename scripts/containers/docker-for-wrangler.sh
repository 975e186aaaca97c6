#!/usr/bin/env bash
# The docker command wrangler dev runs (WRANGLER_DOCKER_BIN). Debian's docker has the classic
# builder only, which refuses buildx's `--load` and `--provenance=...`; and no image registry is
# reachable here, so `docker pull` of an image that is already present counts as done.
set -euo pipefail
if [ "${1:-}" = "build" ]; then
  args=()
  for arg in "$@"; do
    case "$arg" in
      --load | --provenance=*) ;;
      *) args+=("$arg") ;;
    esac
  done
  exec docker "${args[@]}"
fi
if [ "${1:-}" = "pull" ]; then
  for arg in "${@:2}"; do
    case "$arg" in
      -*) ;;
      *) if docker image inspect "$arg" >/dev/null 2>&1; then exit 0; fi ;;
    esac
  done
fi
exec docker "$@"
