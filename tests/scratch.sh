#!/bin/sh
# Run a test program in a scratch directory of its own, removed afterwards:
# some libfabric providers drop files (*.btr) in the current directory.
#
#   sh tests/scratch.sh PROGRAM [ARGS...]

prog=$1
shift
case $prog in
    /*) ;;
    *) prog=$(pwd)/$prog ;;
esac
dir=$(mktemp -d "${CM5TEST_SCRATCH:-${TMPDIR:-/tmp}}/cm5-unit.XXXXXX") ||
    exit 99
trap 'rc=$?; cd / && rm -rf "$dir"; exit $rc' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$dir" || exit 99
"$prog" "$@"
exit $?
