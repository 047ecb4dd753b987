#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Structs and unions returned by value print by member: the
# prototype table lists the members of structs and unions of up to 128
# bytes (man/mcount-tables.5, version 2), flattened to scalars, and the
# runtime prints {a=5, b=-5}.  testdata/protos/members.c:
#  1. on x86_64 and aarch64 (when its gcc is installed), `objpatch list
#     --json` shows each return type's members as the source declares them
#     (offsets from the ABI), and none for a bitfield, an __int128 member or
#     a struct of 160 bytes;
#  2. on x86_64, `objpatch run` prints each value by member: floats from
#     the xmm registers by 8-byte part (jq's jv: a union of a pointer and a
#     double stays in rdx), structs over 16 bytes from the memory rax points
#     to at the return, char arrays as text; the others as bytes or '?';
#  3. C++ (testdata/protos/members_cxx.cc): a class that is not trivially
#     copyable is returned in memory whatever its size (flag 8 in the
#     table), so its value comes from that memory, not from rax.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/protos
OBJPATCH=$TOP/build/objpatch
command -v python3 >/dev/null || { echo "Bail out! python3 is needed"; exit 1; }
[ -x "$OBJPATCH" ] || { echo "Bail out! build/objpatch is missing (make)"; exit 1; }
T=$T_TMP

# Members as members.c declares them: (name, offset, class, size); the
# offsets and sizes are the same on both 64-bit ABIs here.
EXPECT='
ret_pair       a:0:int:4 b:4:int:4
ret_nested     p.x:0:int:2 p.y:2:int:2 tag[0]:4:uint:1 tag[1]:5:uint:1 ok:6:bool:1 c:7:char:1 q:8:pointer:8
ret_word       i:0:int:4 b[0]:0:uint:1 b[1]:1:uint:1 b[2]:2:uint:1 b[3]:3:uint:1
ret_anon       col:0:enum:4 u:4:uint:4 s:4:int:4 name:8:pointer:8
ret_big        a:0:int:8 b:8:int:8 c:16:int:8
ret_jv         kind:0:uint:1 pad:1:uint:1 offset:2:uint:2 size:4:int:4 u.ptr:8:pointer:8 u.number:8:float:8
ret_dl         d:0:float:8 l:8:int:8
ret_ld         l:0:int:8 d:8:float:8
ret_fff        x:0:float:4 y:4:float:4 z:8:float:4
ret_dd         a:0:float:8 b:8:float:8
ret_named      id:0:int:4 weight:8:float:8 name[0]:16:char:1 name[1]:17:char:1 name[2]:18:char:1 name[3]:19:char:1 name[4]:20:char:1 name[5]:21:char:1 name[6]:22:char:1 name[7]:23:char:1 name[8]:24:char:1 name[9]:25:char:1 name[10]:26:char:1 name[11]:27:char:1
ret_bits       -
ret_wide       -
ret_huge       -
main           -
'

members_of() {	# members_of LIST.json: "function member member ..." per line, "-" for none
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1])):
    ms = f["return"].get("members", [])
    print(f["function"], " ".join("%s:%d:%s:%d" % (m["name"], m["offset"], m["class"], m["size"]) for m in ms) or "-")
' "$1" | sort
}

for target in x86_64 aarch64; do
	cc=gcc
	[ $target = aarch64 ] && cc=aarch64-linux-gnu-gcc
	if ! command -v "$cc" >/dev/null; then
		skip "$target: $cc is not installed"
		continue
	fi
	compile_ok "$target members.c" "$cc" -O2 -g -pg -c "$SRC/members.c" -o "$T/members-$target.o" || continue
	run_ok "$target: recordmcount --mode=user" "$RMC" --mode=user "$T/members-$target.o" || continue
	if ! "$OBJPATCH" list --json "$T/members-$target.o" > "$T/members-$target.json"; then
		ok 1 "$target: objpatch list --json"
		continue
	fi
	is "$(members_of "$T/members-$target.json")" "$(awk 'NF { $1 = $1; print }' <<< "$EXPECT" | sort)" \
		"$target: the table lists the members of small structs and unions, none for the others"
done

# ---- 2. the values in a trace ----
if compile_ok "members link" gcc -o "$T/members" "$T/members-x86_64.o"; then
	"$OBJPATCH" run --output "$T/members.txt" -- "$T/members"
	ok $? "objpatch run: the program's own checks pass"
	got=$(python3 -c '
import re, sys
for m in re.finditer(r"\| +(ret_\w+)\(\); /\* ret=(.*) \*/$", open(sys.argv[1]).read(), re.M):
    print(m.group(1), m.group(2))' "$T/members.txt" | sort)
	want="ret_anon {col=1, u=7, s=7, name=NULL}
ret_big {a=1, b=2, c=3}
ret_bits BYTES
ret_dd {a=0.5, b=4}
ret_dl {d=1.5, l=-7}
ret_fff {x=1, y=2, z=3.5}
ret_huge ?
ret_jv {kind=4, pad=0, offset=0, size=0, u.ptr=0x3ff8000000000000, u.number=1.5}
ret_ld {l=-8, d=2.25}
ret_named {id=3, weight=0.25, name=\"hello\"}
ret_nested {p.x=3, p.y=-4, tag[0]=5, tag[1]=6, ok=true, c=122 'z', q=NULL}
ret_pair {a=5, b=-5}
ret_wide {09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00}
ret_word {i=16909060, b[0]=4, b[1]=3, b[2]=2, b[3]=1}"
	# a bitfield's padding bits are the compiler's: any 8 bytes
	got=$(sed -E 's/^ret_bits \{([0-9a-f]{2} ){7}[0-9a-f]{2}\}$/ret_bits BYTES/' <<< "$got")
	is "$got" "$want" "x86_64: structs and unions print by member, from the registers or the memory they come back in"
fi

# ---- 3. C++: returned in memory whatever the size ----
if compile_ok "members_cxx.cc" g++ -O2 -g -pg -c "$SRC/members_cxx.cc" -o "$T/cxx.o" &&
   run_ok "members_cxx: recordmcount --mode=user" "$RMC" --mode=user "$T/cxx.o" &&
   compile_ok "members_cxx link" g++ -o "$T/cxx" "$T/cxx.o"; then
	flags=$("$OBJPATCH" list --json "$T/cxx.o" | python3 -c '
import json, sys
for f in json.load(sys.stdin):
    if f["function"] in ("counted", "plain"):
        print(f["function"], f["return"].get("in_memory", False))' | sort)
	is "$flags" "counted True
plain False" "a class with its own copy constructor is returned in memory; a plain struct is not"
	"$OBJPATCH" run --output "$T/cxx.txt" -- "$T/cxx"
	ok $? "objpatch run: members_cxx's own checks pass"
	got=$(grep -oE "(counted|plain)\(\); /\* ret=.* \*/" "$T/cxx.txt" | sort -u)
	is "$got" "counted(); /* ret={n=7} */
plain(); /* ret={n=8} */" "the class returned in memory prints from that memory, the plain one from rax"
fi

done_testing
