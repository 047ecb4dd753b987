#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0-only
#
# Races against an in-place rewrite by recordmcount, for t/43-faults.t, at
# random instants spread over a whole run (measured first):
#
#   race.pl kill TOOL ORIGINAL PROCESSED WORKDIR RUNS SEED
#	SIGKILL.  After every run the object must be byte-identical to
#	ORIGINAL or to PROCESSED (the tool's complete result).  A temporary
#	file left by a kill must not disturb the next run: a rerun must
#	succeed and leave PROCESSED.
#   race.pl replace TOOL ORIGINAL PROCESSED WORKDIR RUNS SEED OTHER OTHER_PROCESSED
#	another object renamed over it.  The object must end as one of the
#	three whole files (OTHER, PROCESSED, or OTHER_PROCESSED when the tool
#	read the replacement); status 1 only with OTHER kept and the message
#	saying the file changed.
#
# Prints `key value` lines (the counts) and `bad ...` lines for failures.
use strict;
use warnings;
use POSIX ();
use Time::HiRes qw(usleep time);

my ($mode, $tool, $orig_path, $done_path, $dir, $runs, $seed, $other_path, $other_done_path) = @ARGV;
die "usage: $0 kill|replace TOOL ORIGINAL PROCESSED WORKDIR RUNS SEED [OTHER OTHER_PROCESSED]\n"
	unless defined $seed && ($mode eq 'kill' || defined $other_done_path);

sub slurp {
	my ($path) = @_;
	open(my $f, '<:raw', $path) or return undef;
	local $/;
	my $b = <$f>;
	close $f;
	return $b;
}

sub spit {
	my ($path, $bytes) = @_;
	open(my $f, '>:raw', $path) or die "$path: $!\n";
	print $f $bytes;
	close $f or die "$path: $!\n";
}

my $orig = slurp($orig_path);
my $done = slurp($done_path);
my $x = "$dir/x.o";

sub start {
	my $pid = fork() // die "fork: $!\n";
	if ($pid == 0) {
		open(STDOUT, '>', '/dev/null');
		open(STDERR, '>', "$dir/stderr");
		exec($tool, $x) or POSIX::_exit(127);
	}
	return $pid;
}

# The duration of a complete run, so the races spread over all of it.
my @t;
for (1 .. 7) {
	spit($x, $orig);
	my $t0 = time;
	my $pid = start();
	waitpid($pid, 0);
	push @t, time - $t0;
	die "a complete run fails (status $?)\n" if $?;
	die "a complete run does not give PROCESSED\n" if slurp($x) ne $done;
}
@t = sort { $a <=> $b } @t;
my $span = $t[3] * 1.25;
printf "run_ms %.2f\n", $t[3] * 1000;

# A 32-bit LCG of our own: the same delays for a seed on every perl.
my $state = $seed % 4294967296;
sub rnd {
	$state = ($state * 1103515245 + 12345) % 2147483648;
	return $state / 2147483648;
}

my %n = map { $_ => 0 } $mode eq 'kill' ?
	qw(bad killed finished intact processed leftover rerun_ok leftover_ignored) :
	qw(bad status0_theirs status0_ours status0_theirs_processed status1_theirs);

sub bad {
	$n{bad}++;
	print "bad run @_\n";
}

sub kill_run {
	my ($i, $delay) = @_;
	my $pid = start();
	usleep($delay * 1e6);
	kill 'KILL', $pid;
	waitpid($pid, 0);
	my $status = $?;
	if (($status & 127) == 9) {
		$n{killed}++;
	} elsif ($status == 0) {
		$n{finished}++;
	} else {
		bad($i, "status $status: " . (slurp("$dir/stderr") // ''));
	}
	my $now = slurp($x) // '';
	if ($now eq $orig) {
		$n{intact}++;
	} elsif ($now eq $done) {
		$n{processed}++;
	} else {
		bad($i, sprintf("delay %.2f ms: neither the original nor the result (%d bytes)",
				$delay * 1000, length $now));
		spit("$dir/bad-$i.o", $now);
	}
	my @left = glob("$x.rmc??????");
	return unless @left;
	$n{leftover}++;
	# A leftover must not disturb the next run on the same object.
	my $rpid = start();
	waitpid($rpid, 0);
	if ($? == 0 && (slurp($x) // '') eq $done) {
		$n{rerun_ok}++;
	} else {
		bad($i, "the rerun after a leftover failed (status $?)");
	}
	$n{leftover_ignored}++ if grep { -e } @left;
}

my ($other, $other_done);
sub replace_run {
	my ($i, $delay) = @_;
	spit("$dir/other", $other);
	my $pid = start();
	usleep($delay * 1e6);
	rename("$dir/other", $x) or die "rename: $!\n";
	waitpid($pid, 0);
	my $status = $? >> 8;
	bad($i, "signal $?") if $? & 127;
	my $err = slurp("$dir/stderr") // '';
	my $now = slurp($x) // '';
	my $state = $now eq $other ? 'theirs' : $now eq $done ? 'ours' :
		$now eq $other_done ? 'theirs_processed' : 'BROKEN';
	$n{"status${status}_$state"}++;
	if ($state eq 'BROKEN') {
		bad($i, sprintf("delay %.2f ms: not one of the three whole files", $delay * 1000));
	} elsif ($status == 1) {
		bad($i, "status 1 without the replacement kept: $err") unless $state eq 'theirs';
		bad($i, "message: $err")
			unless $err =~ /^recordmcount: \Q$x\E: changed by another process while being [a-z]+.*\n\z/;
	} elsif ($status != 0 || $err ne '') {
		bad($i, "status $status: $err");
	}
	my @left = glob("$x.rmc??????");
	bad($i, "temporary file left") if @left;
}

if ($mode eq 'replace') {
	$other = slurp($other_path);
	$other_done = slurp($other_done_path);
}
for my $i (1 .. $runs) {
	spit($x, $orig);
	unlink glob("$x.rmc??????");
	my $delay = rnd() * $span;
	$mode eq 'kill' ? kill_run($i, $delay) : replace_run($i, $delay);
}
unlink glob("$x.rmc??????");
print "$_ $n{$_}\n" for sort keys %n;
