#!/bin/sh
# The tree is in the project's own format (.clang-format, clang-format
# 14, Debian 12's): a change that is not fails here with the places,
# and `clang-format-14 -i FILE` mends it.  tests/legacy keeps its 1993
# layout (its .clang-format disables formatting).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
cf=
for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1 &&
        "$c" --version | grep -q 'version 14\.'; then
        cf=$c
        break
    fi
done
if [ -z "$cf" ]; then
    echo "1..0 # SKIP no clang-format 14 (Debian 12: apt-get install" \
        "clang-format; quickstart.sh check installs it)"
    exit 0
fi
plan 2

(cd "$src" && find am algos cmmd_compat tools legacy tests bench examples \
    \( -name '*.c' -o -name '*.h' \) -type f | sort) >files
check "$(wc -l <files) C sources and headers found" '[ "$(wc -l <files)" -gt 200 ]'
(cd "$src" && xargs "$cf" --dry-run --Werror <"$OLDPWD/files") >out 2>&1
check "every one is in the project's format" \
    '! grep -E "^[^ ].*(warning|error):" out | sed "s/^/# /" | grep .'
