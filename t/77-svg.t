#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Flame graphs (--format svg) of testdata/svg/flame.c (three threads,
# recursion, typed returns, a second module), written live by objpatch run
# (--format svg, OBJPATCH_FORMAT=svg) and by objpatch report from a
# recording; testdata/svg/check_svg.py reads each:
#  - well-formed XML naming nothing outside itself;
#  - each frame at least as wide as its children together, the root's
#    children adding up to the root;
#  - the tooltips' calls, per function and per stack, are those the text
#    trace of the same recording shows, and their return values agree
#    with it; each module's frames in hues of their own;
# trace/svg.c alone, under ASan/UBSan (testdata/svg/svg_unit.c), on names
# and values with markup, bytes that are not UTF-8, control characters and
# code points XML forbids, a 20,000-frame chain, 10,000 callees too narrow
# to draw, a callee longer than its caller, and nothing at all;
# and Chromium (headless) renders the recording's picture once to a PNG
# with no script error, the script having run to its end, zoomed into a
# frame, reset, and searched as check_svg.py computes it should.
# About 15 s, most of it Chromium's start.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/svg
CHECK=(python3 "$SRC/check_svg.py")
D=$T_TMP
cd "$D" || exit 1

compile_ok "flame_lib.c" gcc -std=gnu11 -Wall -Wextra -Werror -g -O1 -pg -fPIC -c "$SRC/flame_lib.c" -o lib.o &&
compile_ok "flame.c" gcc -std=gnu11 -Wall -Wextra -Werror -g -O1 -pg -c "$SRC/flame.c" -o flame.o &&
run_ok "recordmcount --mode=user flame.o lib.o" "$RMC" --mode=user flame.o lib.o &&
compile_ok "link libflame.so" gcc -shared -o libflame.so lib.o &&
compile_ok "link flame" gcc -o flame flame.o -L. -lflame -Wl,-rpath,'$ORIGIN' -pthread ||
	{ done_testing; exit 1; }

# checks LABEL ARGS...: each line check_svg.py prints is a test; it must get to its end.
checks() {
	local label=$1 line out
	shift
	out=$("${CHECK[@]}" "$@" 2>&1)
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok 0 "[$label] ${line#ok - }" ;;
		"not ok - "*) ok 1 "[$label] ${line#not ok - }" ;;
		"expect "*) echo "${line#expect }" >> expect ;;
		done) ;;
		*) diag "$line" ;;
		esac
	done <<< "$out"
	grep -qx done <<< "$out"
	ok $? "[$label] check_svg.py ran to its end"
}

# ---- from a recording, against the text trace of the same recording ----
run_ok "objpatch record" "$OBJPATCH" record -o rec.data -- ./flame
run_ok "objpatch report (text)" "$OBJPATCH" report -o rec.txt rec.data
run_ok "objpatch report --format svg" "$OBJPATCH" report --format svg -o rec.svg rec.data
rm -f expect
checks report rec.svg --text rec.txt --modules 2 --browser-script browser.js

# ---- live: the program's calls are the same in every run ----
run_ok "objpatch run --format svg -o live.svg" "$OBJPATCH" run --format svg -o live.svg -- ./flame
checks run live.svg --text rec.txt --modules 2
mkdir -p env && (cd env && OBJPATCH_FORMAT=svg "$OBJPATCH" run -- ../flame > /dev/null)
[ -s env/objpatch.svg ]
ok $? "OBJPATCH_FORMAT=svg with no output named: objpatch.svg"
checks OBJPATCH_FORMAT=svg env/objpatch.svg --text rec.txt
mkdir -p dflt && (cd dflt && "$OBJPATCH" run --format svg -- ../flame > /dev/null)
[ -s dflt/objpatch.svg ]
ok $? "objpatch run --format svg with no --output: objpatch.svg"

# ---- trace/svg.c alone, on graphs no test program's trace makes ----
if compile_ok "svg_unit.c (ASan/UBSan)" gcc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -g -I"$TOP" \
	-fsanitize=address,undefined -fno-sanitize-recover=all -o svg_unit "$SRC/svg_unit.c" "$TOP/trace/svg.c" \
	"$TOP"/build/obj/layer-{trace,tables,elf,arch,util}.a -lelf; then
	for c in "names 11" "deep 20001" "wide 3" "skew 4" "empty 1"; do
		set -- $c
		run_ok "[unit $1] svg_unit $1: exit 0, no sanitizer report" ./svg_unit "$1" "$1.svg"
		checks "unit $1" --min-frames "$2" "$1.svg"
	done
	# What the names become: markup as it was, anything XML cannot hold as U+FFFD.
	out=$(python3 - names.svg <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
names = [g.find(ns + "title").text.split("\n")[0] for g in root.iter(ns + "g") if g.get("class") == "f"]
want = ["all", "main", "plain", "a<b>&\"c'", "bad\ufffd\ufffd bytes", "ctl\ufffd\ufffd\ufffdtab\ufffdnl",
        "nonchar\ufffd", "surrogate\ufffd\ufffd\ufffd", "caf\u00e9 \u20ac", "cut\ufffd\ufffd", "x" * 4999]
print("ok" if names == want else "names %r\nwant  %r" % (names, want))
PY
)
	is "$out" ok "[unit names] names keep their markup; what XML cannot hold is U+FFFD"
fi

# ---- a user's mistake: one line that names svg among the formats ----
out=$("$OBJPATCH" report --format svgz rec.data 2>&1)
status=$?
[ $status = 2 ] && [ "$(wc -l <<< "$out")" = 1 ] && grep -q 'text, json, folded, svg or perfetto' <<< "$out"
ok $? "report --format svgz: status 2, one line naming the formats"
[ $? = 0 ] || diag "status $status: $out"

# ---- Chromium: the picture renders, its script runs without an error, zoom and search work ----
if ! command -v chromium > /dev/null; then
	ok 1 "chromium is installed (scripts/deps.sh installs it)"
	done_testing
	exit
fi
# The checker's script goes last, so it runs after the picture's own.
sed '$d' rec.svg > browser.svg && cat browser.js >> browser.svg && tail -n 1 rec.svg >> browser.svg
timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$D/chromium" \
	--enable-logging=stderr --v=0 --window-size=1200,800 --screenshot="$D/flame.png" --dump-dom \
	"file://$D/browser.svg" > dom.txt 2> chromium.log
status=$?
ok $status "chromium --headless rendered it (exit 0)"
[ $status = 0 ] || diag "$(tail -5 chromium.log)"
[ "$(head -c 8 flame.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
ok $? "the screenshot is a PNG ($(stat -c %s flame.png 2>/dev/null) bytes)"
! grep -E 'CONSOLE.*(Uncaught|Error)' chromium.log
ok $? "no script error on the console"
root=$(grep -m1 -o '<svg [^>]*>' dom.txt)
grep -q 'data-ready="1"' <<< "$root"
ok $? "the picture's script ran to its end (data-ready=\"1\")"
grep -q 'data-t-done="1"' <<< "$root"
ok $? "the checker's script ran after it"
while read -r name want; do
	got=$(sed -n "s/.* data-t-$name=\"\([^\"]*\)\".*/\1/p" <<< "$root")
	# A number in a value (a width, the share Search shows) may be one unit
	# of its last digit apart: the script's toFixed() rounds a tie up,
	# Python's format() to even, and the sums are added in other orders.
	# The shares are durations, so a tie comes and goes from run to run.
	number='^([^0-9]*)([0-9]+)(\.([0-9]+))?(.*)$'
	if [[ $want =~ $number ]]; then
		w_pre=${BASH_REMATCH[1]} w_num=${BASH_REMATCH[2]}${BASH_REMATCH[3]} w_post=${BASH_REMATCH[5]}
		unit=$(awk -v d=${#BASH_REMATCH[4]} 'BEGIN { print 10 ^ -d }')
		if [[ $got =~ $number ]] && [ "${BASH_REMATCH[1]}" = "$w_pre" ] && [ "${BASH_REMATCH[5]}" = "$w_post" ] &&
			awk -v a="${BASH_REMATCH[2]}${BASH_REMATCH[3]}" -v b="$w_num" -v u="$unit" \
				'BEGIN { d = a - b; exit !(d * d <= u * u * 1.0001) }'; then
			got=$want
		fi
	fi
	is "$got" "$want" "in Chromium: $name"
done < expect

done_testing
