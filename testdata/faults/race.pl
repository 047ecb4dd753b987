#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0-only
#
# Races against an in-place rewrite by recordmcount, for t/43-faults.t, at
# every point of a whole run.  A point is the entry of one of the tool's
# system calls on files (those of a complete run, listed first by strace):
# strace stops the tool there (an injected SIGSTOP), the race happens, and
# the tool is killed or let go on.  The tool sees files only through system
# calls, so these points give every outcome an instant between them could,
# and every run is the same on any machine, however busy (races at random
# wall-clock delays were not: their spread checks could fail).
#
#   race.pl kill TOOL ORIGINAL PROCESSED WORKDIR
#	SIGKILL.  After every run the object must be byte-identical to
#	ORIGINAL or to PROCESSED (the tool's complete result).  A temporary
#	file left by a kill must not disturb the next run: a rerun must
#	succeed, leave PROCESSED and remove it (leftover_kept counts those
#	it did not).
#   race.pl replace TOOL ORIGINAL PROCESSED WORKDIR OTHER OTHER_PROCESSED
#	another object renamed over it.  The object must end as one of the
#	three whole files (OTHER, PROCESSED, or OTHER_PROCESSED when the tool
#	read the replacement); status 1 only with OTHER kept and the message
#	saying the file changed.
#
# One run races at each point: before every system call on files of a
# complete run, from the first that names the object, and once after the
# last.
# Prints `key value` lines (the counts) and `bad ...` lines for failures.
use strict;
use warnings;
use POSIX ();
use Time::HiRes qw(usleep);

my ($mode, $tool, $orig_path, $done_path, $dir, $other_path, $other_done_path) = @ARGV;
die "usage: $0 kill|replace TOOL ORIGINAL PROCESSED WORKDIR [OTHER OTHER_PROCESSED]\n"
	unless defined $dir && ($mode eq 'kill' || defined $other_done_path);

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
# The temporary files of runs on it (elf/files.h): hidden, `.x.o.rmc-PID.tmp`.
my $temps = "$dir/.x.o.rmc-*.tmp";

# The tool, under strace when `stop` names a point ([syscall, k]: its k-th
# call of that syscall); its pid, strace's pid, strace's log.
sub start {
	my ($stop) = @_;
	my $log = "$dir/strace.log";
	unlink $log;
	my @cmd = ($tool, $x);
	@cmd = ('strace', '-qq', '-o', $log, '-e', "trace=$stop->[0]",
		'-e', "inject=$stop->[0]:signal=SIGSTOP:when=$stop->[1]", @cmd) if $stop;
	my $pid = fork() // die "fork: $!\n";
	if ($pid == 0) {
		open(STDOUT, '>', '/dev/null');
		open(STDERR, '>', "$dir/stderr");
		exec(@cmd) or POSIX::_exit(127);
	}
	return $pid;
}

# The traced tool once it stopped at its point (strace logs the stop as
# the tool enters it): its pid; undef when strace ended first, its status
# then kept for finish().
my %ended;
sub stopped {
	my ($spid) = @_;
	for (1 .. 600000) {	# a minute at least: only a hang gets there
		if ((slurp("$dir/strace.log") // '') =~ /--- stopped by SIGSTOP ---/) {
			my $kids = slurp("/proc/$spid/task/$spid/children") // '';
			return $1 if $kids =~ /(\d+)/;
		}
		if (waitpid($spid, POSIX::WNOHANG()) == $spid) {
			$ended{$spid} = $?;
			return undef;
		}
		usleep(100);
	}
	die "the tool neither stopped at its point nor ended\n";
}

# The status of the run (strace ends as the tool it traces ended).
sub finish {
	my ($spid) = @_;
	return delete $ended{$spid} if exists $ended{$spid};
	waitpid($spid, 0);
	return $?;
}

# LeakSanitizer cannot run under ptrace; the sanitized build's leaks are
# checked by the other tests.
$ENV{ASAN_OPTIONS} = join(':', grep { defined && length } $ENV{ASAN_OPTIONS}, 'detect_leaks=0');

# The system calls of a complete run on files and descriptors, in order
# (strace counts a syscall's calls so, for `when`): the points are those
# from the first that names the object on (what comes before cannot tell
# one file from another), but for anonymous mappings.
spit($x, $orig);
{
	my $pid = fork() // die "fork: $!\n";
	if ($pid == 0) {
		open(STDOUT, '>', '/dev/null');
		open(STDERR, '>', "$dir/stderr");
		exec('strace', '-qq', '-o', "$dir/calls.log", '-e', 'trace=%file,%desc', $tool, $x) or
			POSIX::_exit(127);
	}
	waitpid($pid, 0);
	die "a complete run under strace fails (status $?)\n" if $?;
	die "a complete run does not give PROCESSED\n" if slurp($x) ne $done;
}
my @lines = grep { /^\w+\(/ } split /\n/, slurp("$dir/calls.log");
shift @lines if @lines && $lines[0] =~ /^execve\(/;
my @calls = map { /^(\w+)\(/; $1 } @lines;
my ($first) = grep { index($lines[$_], "\"$x\"") >= 0 } 0 .. $#lines;
die "no system call names $x\n" unless defined $first;
my @points = grep { $lines[$_] !~ /MAP_ANONYMOUS/ } $first .. $#lines;
printf "points %d\n", @points + 1;

# Point n (1-based): the syscall before which the run stops, and which call
# of it that is; past the last: none, the run completes before the race.
sub point {
	my ($n) = @_;
	return undef if $n > @points;
	my $at = $points[$n - 1];
	my $name = $calls[$at];
	my $k = grep { $_ eq $name } @calls[0 .. $at];
	return [$name, $k];
}

my %n = map { $_ => 0 } $mode eq 'kill' ?
	qw(bad killed finished intact processed leftover rerun_ok leftover_kept) :
	qw(bad status0_theirs status0_ours status0_theirs_processed status1_theirs);

sub bad {
	$n{bad}++;
	print "bad run @_\n";
}

sub kill_run {
	my ($i, $n) = @_;
	my $point = point($n);
	my $pid = start($point);
	my $tool_pid = $point ? stopped($pid) : undef;
	kill 'KILL', $tool_pid if $tool_pid;
	my $status = finish($pid);
	if (($status & 127) == 9) {
		$n{killed}++;
	} elsif ($tool_pid && (slurp("$dir/stderr") // '') =~ /^strace: ptrace\(PTRACE_[A-Z]+,pid:$tool_pid,/m) {
		# strace lost the race with our SIGKILL (its PTRACE_LISTEN on
		# the stopped tool fails, and it exits 1): the tool was killed
		# all the same, at its point.
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
		bad($i, sprintf("at point %d: neither the original nor the result (%d bytes)",
				$n, length $now));
		spit("$dir/bad-$i.o", $now);
	}
	my @left = glob($temps);
	return unless @left;
	$n{leftover}++;
	# A leftover must not disturb the next run on the same object.
	my $rpid = start(undef);
	waitpid($rpid, 0);
	if ($? == 0 && (slurp($x) // '') eq $done) {
		$n{rerun_ok}++;
	} else {
		bad($i, "the rerun after a leftover failed (status $?)");
	}
	# ... and goes with it: its process is dead (elf/files.c).
	$n{leftover_kept}++ if grep { -e } @left;
}

my ($other, $other_done);
sub replace_run {
	my ($i, $n) = @_;
	spit("$dir/other", $other);
	my $point = point($n);
	my $pid = start($point);
	my $tool_pid = $point ? stopped($pid) : undef;
	if ($tool_pid) {
		rename("$dir/other", $x) or die "rename: $!\n";
		kill 'CONT', $tool_pid;
	}
	my $raw = finish($pid);
	rename("$dir/other", $x) or die "rename: $!\n" unless $tool_pid;
	my $status = $raw >> 8;
	bad($i, "signal $raw") if $raw & 127;
	my $err = slurp("$dir/stderr") // '';
	my $now = slurp($x) // '';
	my $state = $now eq $other ? 'theirs' : $now eq $done ? 'ours' :
		$now eq $other_done ? 'theirs_processed' : 'BROKEN';
	$n{"status${status}_$state"}++;
	if ($state eq 'BROKEN') {
		bad($i, sprintf("at point %d: not one of the three whole files", $n));
	} elsif ($status == 1) {
		bad($i, "status 1 without the replacement kept: $err") unless $state eq 'theirs';
		bad($i, "message: $err")
			unless $err =~ /^recordmcount: \Q$x\E: changed by another process while being [a-z]+.*\n\z/;
	} elsif ($status != 0 || $err ne '') {
		bad($i, "status $status: $err");
	}
	my @left = glob($temps);
	bad($i, "temporary file left") if @left;
}

if ($mode eq 'replace') {
	$other = slurp($other_path);
	$other_done = slurp($other_done_path);
}
for my $n (1 .. @points + 1) {
	spit($x, $orig);
	unlink glob($temps);
	$mode eq 'kill' ? kill_run($n, $n) : replace_run($n, $n);
}
unlink glob($temps);
print "$_ $n{$_}\n" for sort keys %n;
