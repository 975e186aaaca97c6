#!/bin/sh
# Stands in for docker when the Worker is only bundled (npm run bundle): wrangler pipes each
# container's Dockerfile to it, so it must read its input; nothing is built.
cat >/dev/null
