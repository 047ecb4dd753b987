#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0-only
#
# Write a kernel-flavoured C file with many functions of varying size to
# stdout, for the benchmark corpus.  Deterministic for a given seed (its own
# generator, so the output does not depend on perl's rand()).
#
#   gen-c.pl [--seed=N] [--funcs=N] [--weak-only] [--sections] [--max-blocks=N]
#
# --sections puts a few functions in __init-style sections (traced) and in a
# section the tool does not trace (its calls become NOPs), as drivers do.
# --weak-only makes every function weak: with -ffunction-sections and no
# unwind tables, gas keeps no section symbol for such sections.
use strict;
use warnings;
use Getopt::Long;

my ($seed, $nfuncs, $weak_only, $sections, $max_blocks) = (1, 100, 0, 0, 1000);
GetOptions('seed=i' => \$seed, 'funcs=i' => \$nfuncs, 'weak-only' => \$weak_only,
	   'sections' => \$sections, 'max-blocks=i' => \$max_blocks) or die "usage: $0 [--seed=N] [--funcs=N] [--weak-only] [--sections] [--max-blocks=N]\n";

my $state = ($seed * 2654435761 + 12345) % 4294967296;
sub rnd {	# rnd(N): 0..N-1, a 32-bit LCG
	my $n = shift;
	$state = ($state * 1103515245 + 12345) % 2147483648;
	return int($state / 65536) % $n;
}

print <<'EOF';
typedef unsigned long size_t;
typedef unsigned int u32;
typedef unsigned long long u64;
struct list_head { struct list_head *next, *prev; };
struct dev {
	struct list_head node;
	u32 flags, state, refcnt, irq;
	u64 base, len;
	char name[32];
	int (*op)(struct dev *, int);
	void *priv;
};
extern int printk(const char *fmt, ...);
extern void *kmalloc(size_t size, int gfp);
extern void kfree(const void *p);
extern void spin_lock(void *l);
extern void spin_unlock(void *l);
extern int dev_cb(struct dev *d, int v);
extern u64 table[256];
static char lock[64];
static int counter;
EOF

# Bodies are built from blocks; the number of blocks sets the function size.
my @blocks = (
	sub { my $v = shift; "\tfor (int i = 0; i < n; i++)\n\t\tacc += table[(i * $v) & 255] ^ (acc >> ($v % 13 + 1));\n" },
	sub { my $v = shift; "\tif (d->flags & 0x" . sprintf('%x', 1 << ($v % 16)) . ")\n\t\tacc += d->op(d, (int)acc + $v);\n\telse\n\t\td->state = (u32)acc;\n" },
	sub { my $v = shift;
	      my $s = "\tswitch ((acc + $v) & 7) {\n";
	      $s .= "\tcase $_: acc = acc * " . ($v + $_ + 3) . " + d->irq; break;\n" for 0 .. 5;
	      $s . "\tdefault: acc ^= d->base; break;\n\t}\n" },
	sub { my $v = shift; "\tspin_lock(lock);\n\td->refcnt += $v;\n\tcounter += (int)(acc & 0xff);\n\tspin_unlock(lock);\n" },
	sub { my $v = shift; "\tfor (struct list_head *p = d->node.next; p && p != &d->node; p = p->next)\n\t\tacc += (u64)p->prev * $v;\n" },
	sub { my $v = shift; "\tfor (int i = 0; i < 31 && d->name[i]; i++)\n\t\tacc = acc * 31 + (unsigned char)d->name[i] + $v;\n" },
	sub { my $v = shift; "\tif (acc > 0x$v" . "000) {\n\t\tvoid *buf = kmalloc(acc & 0xfff, $v);\n\t\tif (!buf)\n\t\t\treturn -12;\n\t\tacc += dev_cb(d, (int)(unsigned long)buf);\n\t\tkfree(buf);\n\t}\n" },
	sub { my $v = shift; "\tacc = (acc << " . ($v % 7 + 1) . ") | (acc >> " . (64 - $v % 7 - 1) . ");\n\tacc ^= d->len + $v;\n" },
	sub { my $v = shift; "\tif (acc & $v)\n\t\tprintk(\"dev %s: state %u acc %lu\\n\", d->name, d->state, acc);\n" },
);

sub size_in_blocks {	# mostly small, a long tail of large functions
	my $r = rnd(100);
	return 0 if $r < 15;
	return 1 + rnd(2) if $r < 55;
	return 3 + rnd(5) if $r < 85;
	return 8 + rnd(12) if $r < 97;
	return 20 + rnd(40);
}

my @defined;
my @statics;
for my $f (0 .. $nfuncs - 1) {
	my $name = "fn_$f";
	my $r = rnd(100);
	my $attr = '';
	my $storage = '';
	if ($weak_only) {
		$attr = '__attribute__((weak)) ';
	} elsif ($r < 20) {
		$storage = 'static ';
		$attr = '__attribute__((noinline)) ';
	} elsif ($r < 23) {
		$attr = '__attribute__((no_instrument_function)) ';
	}
	if ($sections && !$weak_only) {
		my $s = rnd(100);
		$attr .= '__attribute__((section(".init.text"), cold)) ' if $s < 4;
		$attr .= '__attribute__((section(".meminit.text"))) ' if $s >= 4 && $s < 6;
	}
	my $body = '';
	my $nb = size_in_blocks();
	$nb = $max_blocks if $nb > $max_blocks;
	$body .= $blocks[rnd(scalar @blocks)]->(1 + rnd(200)) for 1 .. $nb;
	# Call an earlier function now and then, as real code does.
	if (@defined && rnd(3) == 0) {
		$body .= "\tacc += $defined[rnd(scalar @defined)](d, n - 1);\n";
	}
	print "\n${storage}${attr}int $name(struct dev *d, int n);\n" if $storage eq '';
	print "${storage}${attr}int $name(struct dev *d, int n)\n{\n\tu64 acc = d->base + (u64)n;\n\n";
	print $body;
	print "\treturn (int)acc;\n}\n";
	push @defined, $name;
	push @statics, $name if $storage;
}
# Keep static functions alive and give the file an entry point.
my $entry_attr = $weak_only ? "__attribute__((weak)) " : "";
print "\n${entry_attr}int bench_entry(struct dev *d)\n{\n\tint r = 0;\n\n";
print "\tr += $_(d, 1);\n" for @statics;
print "\treturn r;\n}\n";
