#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0-only
#
# Write one part of a C program with many small functions to stdout, for the
# runtime's start-up patching time (bench/runtime.sh): built with -pg, every
# function is a call site the runtime patches before main.
#
#   gen-many.pl [--funcs=N] [--part=I --parts=K]
#
# The N functions are split into K contiguous parts (files), so that the
# parts compile in parallel: gcc takes most of a millisecond per function.
# Part 0 also holds main, which prints main_ns=... (CLOCK_MONOTONIC, first
# thing) for bench/runtime/runit.c and returns: none of the functions is
# called, so a run is start-up and exit only.
use strict;
use warnings;
use Getopt::Long;

my ($nfuncs, $part, $parts) = (20000, 0, 1);
GetOptions('funcs=i' => \$nfuncs, 'part=i' => \$part, 'parts=i' => \$parts)
	or die "usage: $0 [--funcs=N] [--part=I --parts=K]\n";
die "$0: need --funcs >= 1 and 0 <= --part < --parts\n"
	if $nfuncs < 1 || $parts < 1 || $part < 0 || $part >= $parts;

my $first = int($nfuncs * $part / $parts);
my $end = int($nfuncs * ($part + 1) / $parts);

print <<'EOF';
/* noipa: kept although never called, and not folded together by -fipa-icf. */
#if defined(__clang__)
#define SITE __attribute__((noinline, used))
#else
#define SITE __attribute__((noipa, used))
#endif

EOF
# Distinct bodies, so that no two functions are identical; each declared
# first, for -Wmissing-prototypes.
for my $i ($first .. $end - 1) {
	printf "int f%05d(int x);\nSITE int f%05d(int x) { return x * %d + %d; }\n", $i, $i, 2 * ($i % 97) + 3, $i;
}
exit 0 if $part != 0;
print <<'EOF';

#include <stdio.h>
#include <time.h>

__attribute__((no_instrument_function)) static void print_main_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("main_ns=%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

int main(void)
{
	print_main_ns();
	return 0;
}
EOF
