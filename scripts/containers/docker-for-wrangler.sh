#!/usr/bin/env bash
# The docker command wrangler dev runs (WRANGLER_DOCKER_BIN).
# - Debian's docker has the classic builder only, which refuses buildx's `--load` and
#   `--provenance=...`: without buildx they are dropped.
# - No image registry is reachable here: a pull of an image that is present counts as done.
# - GUILDS_IMAGE_LABEL (set by the local stack) labels the images this stack builds. wrangler
#   dev removes, when it stops, every container whose image is one of its own; without a label
#   of its own two stacks build the same image, and one stopping would kill the other's boxes.
set -euo pipefail
if [ "${1:-}" = "build" ]; then
  args=(build)
  if [ -n "${GUILDS_IMAGE_LABEL:-}" ]; then args+=(--label "guilds.stack=${GUILDS_IMAGE_LABEL}"); fi
  buildx=yes
  docker buildx version >/dev/null 2>&1 || buildx=no
  for arg in "${@:2}"; do
    case "$arg" in
      --load | --provenance=*) if [ "$buildx" = yes ]; then args+=("$arg"); fi ;;
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
