#!/bin/sh
# md2man.sh LOWDOWN SOURCE IN.md OUT -- turn a man page written in Markdown
# (libfabric style: "---" front matter with title and section) into roff.
#
# lowdown 1.0 reads MultiMarkdown metadata (the first paragraph), not a
# "---" block, so the block's delimiters are dropped first.  Intra-word
# emphasis is off (CM5_BOOT_FD must not lose its underscores), and so are
# superscripts (2^r) and smart typography (--nodes must not become an en
# dash).  Definition
# lists come out as ".LP term; .sp -1v; .IP", and items of tight lists
# are pulled up with ".sp -1" too, which leaves stray blank lines at
# some positions of the page: the former become ".TP", the latter
# ".PD 0; .IP; .PD".  The
# text is set ragged-right without hyphenation (".ad l", ".nh"; and
# ".nr HY 0", or the man macros turn it on again at each paragraph):
# function names must not be split or padded.
#
# With an empty LOWDOWN (lowdown not installed) the page shows the
# Markdown as plain text, marked so that `make dist` refuses it.
set -e
lowdown=$1
source=$2
in=$3
out=$4

front_matter() {
    awk 'NR == 1 && /^---$/ { fm = 1; next }
         fm && /^---$/ { fm = 0; print ""; next }
         { print }' "$in"
}

if [ -z "$lowdown" ]; then
    echo "md2man.sh: lowdown not found: $out shows $in as plain text" >&2
    title=$(sed -n 's/^title: *//p' "$in" | head -n 1)
    section=$(sed -n 's/^section: *//p' "$in" | head -n 1)
    {
        echo '.\" md2man.sh: made without lowdown; install lowdown for a real page'
        echo ".TH \"$title\" \"$section\" \"\" \"$source\" \"cm5fab Manual\""
        echo '.nf'
        front_matter | sed -e '1,/^$/d' -e 's/\\/\\e/g' -e "s/^[.']/\\\\\\&&/"
        echo '.fi'
    } >"$out.tmp"
    mv "$out.tmp" "$out"
    exit 0
fi

front_matter |
    "$lowdown" -s -Tman --parse-no-intraemph --parse-no-super --out-no-smarty \
        -M "source=$source" -M "volume=cm5fab Manual" |
    awk '{ l[NR] = $0 }
     function hack(i) {
        return l[i] == ".if n \\" && l[i + 1] ~ /^\.sp -1v?$/ &&
               l[i + 2] == ".if t \\" && l[i + 3] == ".sp -0.25v" &&
               l[i + 4] ~ /^\.IP /
     }
     END {
        for (i = 1; i <= NR; i++) {
            if (l[i] == ".LP" && i + 6 <= NR && l[i + 1] !~ /^\./ &&
                hack(i + 2) && l[i + 6] ~ /^\.IP "" /) {
                n = split(l[i + 6], w, " ")
                print ".TP " w[n]
                print l[i + 1]
                i += 6
                continue
            }
            if (i + 4 <= NR && hack(i)) {
                print ".PD 0"
                print l[i + 4]
                print ".PD"
                i += 4
                continue
            }
            print l[i]
            if (l[i] ~ /^\.TH /) {
                print ".ad l"
                print ".nh"
                print ".nr HY 0"
            }
        }
     }' >"$out.tmp"
mv "$out.tmp" "$out"
