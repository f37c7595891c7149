#!/bin/sh
# Every program the test scripts, the benchmarks and the demo call is
# installed by quickstart.sh (issue 23): tests/prereqs.py parses each
# script with shfmt and checks the package of every command it runs
# against "sh quickstart.sh packages check|bench" and the minimal Debian
# root.  First a planted tree proves the check fails: a script that calls
# a program of no package, and one that calls a program by a variable's
# default (MPICC=${MPICC:-...}) from a package quickstart.sh lacks.  TAP.
#
#   abs_top_srcdir=SRC sh tests/prereqs.sh

: "${abs_top_srcdir:=$(pwd)}"
S=$abs_top_srcdir
if ! command -v shfmt >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1 ||
    ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP needs shfmt, dpkg and python3 (sh quickstart.sh check installs them)"
    exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prereqs.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 1' HUP INT TERM

# The planted tree: quickstart.sh's lists, and three test scripts.
mkdir -p "$scratch/t/tests" "$scratch/t/bench" "$scratch/t/.ci"
cp "$S/quickstart.sh" "$scratch/t/"
printf '#!/bin/sh\nexec sh ./quickstart.sh check\n' >"$scratch/t/.ci/run"
cat >"$scratch/t/tests/good.sh" <<'SH'
#!/bin/sh
MPICC=${MPICC:-mpicc}
if ! command -v srun >/dev/null; then echo skip; exit 0; fi
timeout -k 5 10 "$MPICC" x.c && srun -n 2 ./a.out | sort | head -1
SH
cat >"$scratch/t/tests/nopkg.sh" <<'SH'
#!/bin/sh
out=$(timeout 5 cm5-no-such-program-anywhere --flag)
SH
cat >"$scratch/t/tests/bydefault.sh" <<'SH'
#!/bin/sh
TOOL=${TOOL:-cm5-not-a-program}
ip netns exec ns1 env A=1 "$TOOL" -v
SH
python3 "$S/tests/prereqs.py" "$scratch/t" >"$scratch/planted" 2>&1
echo "1..4"
if grep -q '^ok .*tests/good.sh' "$scratch/planted"; then
    echo "ok 1 - a script calling installed, listed programs passes"
else
    echo "not ok 1 - a script calling installed, listed programs passes"
    sed 's/^/#   /' "$scratch/planted"
fi
if grep -q '^not ok .*tests/nopkg.sh' "$scratch/planted" &&
    grep -q 'cm5-no-such-program-anywhere (line 2): not installed' \
        "$scratch/planted"; then
    echo "ok 2 - a program behind timeout that nothing installs fails, named"
else
    echo "not ok 2 - a program behind timeout that nothing installs fails, named"
    sed 's/^/#   /' "$scratch/planted"
fi
if grep -q '^not ok .*tests/bydefault.sh' "$scratch/planted" &&
    grep -q 'cm5-not-a-program (line 3)' "$scratch/planted"; then
    echo "ok 3 - a program named by a variable's default, behind ip netns exec and env, fails"
else
    echo "not ok 3 - a program named by a variable's default, behind ip netns exec and env, fails"
    sed 's/^/#   /' "$scratch/planted"
fi
# The tree itself.
python3 "$S/tests/prereqs.py" "$S" >"$scratch/tree" 2>&1
if grep -q '^ok ' "$scratch/tree" && ! grep -q '^not ok' "$scratch/tree" &&
    ! grep -q Traceback "$scratch/tree"; then
    echo "ok 4 - every test, benchmark and quickstart script calls only what quickstart.sh installs ($(grep -c '^ok ' "$scratch/tree") scripts)"
else
    echo "not ok 4 - every test, benchmark and quickstart script calls only what quickstart.sh installs"
    grep -v '^ok ' "$scratch/tree" | sed 's/^/#   /'
fi
