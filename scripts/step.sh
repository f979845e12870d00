#!/bin/bash
# step.sh NAME COMMAND...: run COMMAND as common.sh's step does (its
# stderr in $AGX_CACHE/logs/NAME.log, a line saying how it went), for
# the Makefile.
set -uo pipefail
. "$(dirname "$0")/common.sh"

step "$@"
