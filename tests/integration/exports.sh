#!/bin/sh
# libcm5fab.so exports only the API (it is built with -fvisibility=hidden;
# internals are cm5i_, cm5c_, cm5s_): names starting with cm5_, CMMD_ or
# CMAML_, and other historical CM-5 names (CMCN_..., CMUTIL_...) that a
# public header under cmmd_compat/api declares (STYLE.md, Names), among
# them the real header's lower-case dseek, dtell, dlength, dftruncate; and
# read, write, close, fread, fwrite, which the library takes over for the collective I/O
# of global files (cmmd_compat/cmmd_pfile.c, CMMD_global_open(3)).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

src=${abs_top_srcdir:-$top}
lib=$top/.libs/libcm5fab.so
if [ ! -f "$lib" ]; then
    echo "1..0 # SKIP $lib not built (--disable-shared?)"
    exit 0
fi

plan 4

nm -D --defined-only "$lib" >syms 2>err
rc=$?
awk 'NF >= 3 { print $3 }' syms | sed 's/@.*//' | sort -u >names
grep -Ev '^(cm5_|CMMD_|CMAML_)' names >others
find "$src/cmmd_compat/api" -name '*.h' -exec cat {} + >headers.txt
: >strays
: >historical
while read -r s; do
    case $s in
        read | write | close | fread | fwrite)
            echo "$s" >>historical
            continue
            ;;
        CM[A-Z]*_* | dseek | dtell | dlength | dftruncate)
            # (f(...), f CMMD_KR((...)), or f at the end of a line whose
            # next line holds CMMD_KR((...)): see "Prototypes" in cmmd.h)
            if grep -Eq "[^A-Za-z0-9_]$s([ ]*\(| CMMD_KR\(|$)" headers.txt; then
                echo "$s" >>historical
                continue
            fi
            ;;
    esac
    echo "$s" >>strays
done <others

check "nm -D reads $lib" '[ "$rc" -eq 0 ] && [ -s names ]'
tap_n=$((tap_n + 1))
if [ -s strays ]; then
    echo "not ok $tap_n - only the API is exported: $(wc -l <strays) strays"
    sed 's/^/# stray export: /' strays
else
    echo "ok $tap_n - only the API is exported ($(wc -l <names) symbols, $(wc -l <historical) other historical names)"
fi
check "no internal (cm5i_, cm5c_, cm5s_) symbol is exported" \
    '! grep -Eq "^cm5[ics]_" names'
check "the API is there (cm5_am_request, cm5_init, CMAML_request, CMMD_error)" \
    'for s in cm5_am_request cm5_init CMAML_request CMMD_error \
              CMMD_sync_with_nodes; do grep -qx "$s" names || exit 1; done'
