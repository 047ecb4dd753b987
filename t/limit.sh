#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# t/limit.sh TEST: how make check runs each test (prove --exec): in a
# process group of its own, which is killed whole, with a TAP "Bail out!"
# line naming the test, when it runs longer than T_LIMIT seconds (1200).
# A hung test then fails on its own, in minutes, instead of holding the
# whole run until CI's time runs out with nothing said about which one.
limit=${T_LIMIT:-1200}
set -m			# the test gets a process group of its own: its children die with it
"$@" &
pid=$!
set +m
# Ctrl-C reaches our group, not the test's: pass it on.
trap 'kill -TERM -- "-$pid" 2>/dev/null; exit 130' INT TERM HUP
sleep "$limit" > /dev/null 2>&1 &
timer=$!
wait -n "$pid" "$timer"
if kill -0 "$pid" 2>/dev/null; then
	echo "Bail out! $1 still running after $limit s (T_LIMIT): killed, with every process it started"
	kill -TERM -- "-$pid" 2>/dev/null
	sleep 5
	kill -KILL -- "-$pid" 2>/dev/null
else
	kill "$timer" 2>/dev/null
fi
wait "$pid"
