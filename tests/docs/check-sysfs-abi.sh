#!/bin/bash
# docs/sysfs-abi.md against the code: every sysfs file the fipc modules
# create (device attributes, module parameters, MODULE_VERSION's version
# file) and every debugfs file must have a complete entry (What, Since,
# Access, Type, Description; Date and Contact are stated once in the
# doc's introduction) whose Access matches the code's mode, and every
# What: of the doc must name a file the code creates.  Consecutive What:
# lines share one entry.  One check per file; prints one line per
# problem and ends with "N passed, N failed".
#
#   tests/docs/check-sysfs-abi.sh [DOC]      (or FIPC_SYSFS_DOC=DOC)
#
# What it reads in each module's sources (the objects its Kbuild lists):
#   - DEVICE_ATTR(name, mode, ...), DEVICE_ATTR_{RO,RW,WO,ADMIN_RO,ADMIN_RW}
#     (name), __ATTR(name, mode, ...), __ATTR_{RO,RW,WO}(name);
#   - attributes filled in at run time, "<x>.attr.name = <array>[i]" with
#     "<x>.attr.mode = <mode>": every string of <array>'s initializer
#     (<array>[i].<field>: those of its entries' .<field> = "..."), or
#     "<x>.attr.name = "<name>""; fipc's fipc_idx_attr_init(attr, <name>,
#     idx, show, store) reads as those two lines, mode 0644 with a store,
#     else 0444; fipc_stats_attrs_init(&<kind>, ...) (the statistics
#     counters): a read-only file per { "<name>"[, true] } entry of the
#     initializer of the array <kind> names in .names = <array> (true: in
#     debugfs, not sysfs);
#   - the directory: the name of the file's one named attribute_group
#     (statistics/), under the module's device directory below;
#   - module_param*(name, ..., perm) (perm 0: no sysfs file), also
#     through function-like macros of the module's and fipc's headers
#     (FIPC_PARAM_POLLERS() and its siblings);
#   - MODULE_VERSION: /sys/module/<module>/version;
#   - debugfs_create_<kind>("name", mode, ...) under the module's debugfs
#     directory below.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
doc=${1:-${FIPC_SYSFS_DOC:-$top/docs/sysfs-abi.md}}

# Source directory|device directory of its attributes|debugfs directory
# ("-": the module has none).  The xenbus device names come from the
# xenbus core: "<devicetype>-<domid>-<devid>" for a backend,
# "<devicetype>-<devid>" for a frontend; each driver's debugfs
# directory is its name/<xenbus device> (back_debugfs.c, front_debugfs.c).
modules=(
	"lib/fipc|-|-"
	"linux/drivers/block/xen-fipc-back|/sys/bus/xen-backend/devices/fipcblk-<domid>-<devid>|/sys/kernel/debug/xen-fipc-back/fipcblk-<domid>-<devid>"
	"linux/drivers/block/xen-fipc-front|/sys/bus/xen/devices/fipcblk-<devid>|/sys/kernel/debug/xen-fipc-front/fipcblk-<devid>"
)

die() {
	echo "check-sysfs-abi: $*"
	echo "0 passed, 1 failed"
	exit 1
}

command -v perl >/dev/null 2>&1 || die "perl is needed"
[ -r "$doc" ] || die "cannot read $doc"

# --- the code: "E<TAB>path<TAB>access<TAB>source" and "P<TAB>problem" ---
code=$(perl - "$top" "${modules[@]}" <<'PERL'
use strict;
use warnings;

my $top = shift @ARGV;
my @out;

sub slurp {
	my ($f) = @_;
	open(my $fh, '<', $f) or die "check-sysfs-abi: cannot read $f: $!\n";
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

# Comments out (strings and character constants kept), lines joined.
sub clean {
	my ($s) = @_;
	$s =~ s{("(?:\\.|[^"\\\n])*")|('(?:\\.|[^'\\\n])*')|/\*.*?\*/|//[^\n]*}
	       {defined $1 ? $1 : defined $2 ? $2 : ' '}gse;
	$s =~ s/\\\n/ /g;
	return $s;
}

# The calls of the functions (or macros) matching $re: [name, args...].
sub calls {
	my ($s, $re) = @_;
	my @res;
	while ($s =~ /\b($re)\s*\(/g) {
		my ($fn, $pos, $depth, $arg, @args) = ($1, pos($s), 1, '');
		while ($pos < length $s) {
			my $c = substr($s, $pos++, 1);
			if ($c eq '"' || $c eq "'") {
				$arg .= $c;
				while ($pos < length $s) {
					my $d = substr($s, $pos++, 1);
					$arg .= $d;
					if ($d eq '\\') {
						$arg .= substr($s, $pos++, 1);
					} elsif ($d eq $c) {
						last;
					}
				}
				next;
			}
			if ($c eq '(') {
				$depth++;
			} elsif ($c eq ')') {
				last if !--$depth;
			} elsif ($c eq ',' && $depth == 1) {
				push @args, $arg;
				$arg = '';
				next;
			}
			$arg .= $c;
		}
		push @args, $arg;
		s/^\s+|\s+$//g for @args;
		push @res, [$fn, @args];
		pos($s) = $pos;
	}
	return @res;
}

my %S = (
	S_IRUSR => 0400, S_IWUSR => 0200, S_IXUSR => 0100, S_IRWXU => 0700,
	S_IRGRP => 040, S_IWGRP => 020, S_IXGRP => 010, S_IRWXG => 070,
	S_IROTH => 04, S_IWOTH => 02, S_IXOTH => 01, S_IRWXO => 07,
	S_IRUGO => 0444, S_IWUGO => 0222, S_IXUGO => 0111,
);

# A mode expression (0644, S_IRUGO | S_IWUSR) as a number, or undef.
sub mode {
	my ($m) = @_;
	my $v = 0;
	$m =~ s/^\(\s*(.*?)\s*\)$/$1/;
	for my $t (split /\s*\|\s*/, $m) {
		$t =~ s/^\(\s*(.*?)\s*\)$/$1/;
		if ($t =~ /^0[0-7]*$/) {
			$v |= oct $t;
		} elsif ($t =~ /^[1-9][0-9]*$/) {
			$v |= $t;
		} elsif (exists $S{$t}) {
			$v |= $S{$t};
		} else {
			return undef;
		}
	}
	return $v;
}

sub access {
	my ($m) = @_;
	my ($r, $w) = ($m & 0444, $m & 0222);
	return $w ? ($r ? 'read-write' : 'write-only') : 'read-only';
}

my $interesting = qr/\b(?:module_param\w*|MODULE_VERSION|DEVICE_ATTR\w*|__ATTR\w*|debugfs_create_\w+)\s*\(/;

# Function-like macros whose body declares something of interest.
sub macros {
	my ($s, $m) = @_;
	while ($s =~ /^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)([^\n]*)$/mg) {
		my ($name, $params, $body) = ($1, $2, $3);
		next unless $body =~ $interesting;
		my @p = map { s/^\s+|\s+$//gr } split /,/, $params;
		$m->{$name} = [\@p, $body];
	}
}

# One level of expansion of the macros of %$m invoked in $s.
sub expand {
	my ($s, $m) = @_;
	my $x = '';
	return $x unless %$m;
	my $re = join '|', map { quotemeta } sort keys %$m;
	for my $c (calls($s, $re)) {
		my ($name, @args) = @$c;
		my ($params, $body) = @{$m->{$name}};
		my %val;
		for my $i (0 .. $#$params) {
			my $p = $params->[$i];
			if ($p eq '...' || $p =~ /\.\.\.$/) {
				my $v = join ', ', @args[$i .. $#args];
				$val{$p eq '...' ? '__VA_ARGS__' : $p =~ s/\.\.\.$//r} = $v;
				last;
			}
			$val{$p} = $args[$i] // '';
		}
		my $b = $body;
		if (%val) {
			my $pre = join '|', map { quotemeta } keys %val;
			$b =~ s/(?<![\w#])#\s*($pre)\b/"\"$val{$1}\""/ge;
			$b =~ s/\b($pre)\b/$val{$1}/g;
		}
		$b =~ s/\s*##\s*//g;
		$x .= "$b;\n";
	}
	return $x;
}

my $fipc_inc = "$top/lib/fipc/include/fipc";
my %hdr_macros;
for my $h (glob("$fipc_inc/*.h")) {
	macros(clean(slurp($h)), \%hdr_macros);
}

my $total = 0;
for my $spec (@ARGV) {
	my ($dir, $devdir, $dbgdir) = split /\|/, $spec;
	my $kb = "$top/$dir/Kbuild";
	unless (-r $kb) {
		push @out, "P\t$dir: no Kbuild to find its modules";
		next;
	}
	my $k = slurp($kb);
	$k =~ s/\\\n/ /g;
	$k =~ s/#[^\n]*//g;
	my (%mods, @order);
	while ($k =~ /^obj-\S+\s*[+:]?=\s*(.*)$/mg) {
		for my $o (split ' ', $1) {
			next unless $o =~ /^([\w-]+)\.o$/;
			push @order, $1 unless $mods{$1}++;
		}
	}
	my %dir_macros = %hdr_macros;
	for my $h (glob("$top/$dir/*.h")) {
		macros(clean(slurp($h)), \%dir_macros);
	}
	for my $mod (@order) {
		my @objs;
		while ($k =~ /^\Q$mod\E-(?:y|objs|\$\([A-Z0-9_]+\))\s*[+:]?=\s*(.*)$/mg) {
			push @objs, grep { /\.o$/ } split ' ', $1;
		}
		@objs = ("$mod.o") unless @objs;
		my @srcs = grep { -r "$top/$dir/$_" } map { s/\.o$/.c/r } @objs;
		next unless @srcs;	# built elsewhere (a KUnit suite)
		(my $sysmod = $mod) =~ tr/-/_/;
		my $all = join "\n", map { clean(slurp("$top/$dir/$_")) } @srcs;
		for my $src (@srcs) {
			my $where = "$dir/$src";
			my $s = clean(slurp("$top/$dir/$src"));
			my %m = %dir_macros;
			macros($s, \%m);
			$s =~ s/^[ \t]*#[ \t]*define[^\n]*$//mg;
			my $x = $s;
			my $more = $s;
			for (1 .. 4) {
				$more = expand($more, \%m);
				last if $more eq '';
				$x .= "\n$more";
			}
			my $add = sub {
				my ($path, $mode) = @_;
				my $v = mode($mode);
				if (!defined $v) {
					push @out, "P\t$where: cannot read the mode \"$mode\" of $path";
					return;
				}
				return if !$v;	# no file
				push @out, "E\t$path\t" . access($v) . "\t$where";
				$total++;
			};

			# Module parameters and the version.
			for my $c (calls($x, 'module_param\w*')) {
				my ($fn, $name, @rest) = @$c;
				if ($name !~ /^\w+$/ || !@rest) {
					push @out, "P\t$where: cannot read $fn($name, ...)";
					next;
				}
				$add->("/sys/module/$sysmod/parameters/$name", $rest[-1]);
			}
			$add->("/sys/module/$sysmod/version", '0444')
				if $x =~ /\bMODULE_VERSION\s*\(/;

			# Device attributes.
			my @attrs;
			my %implied = (
				DEVICE_ATTR_RO => '0444', DEVICE_ATTR_RW => '0644',
				DEVICE_ATTR_WO => '0200', DEVICE_ATTR_ADMIN_RO => '0400',
				DEVICE_ATTR_ADMIN_RW => '0600', __ATTR_RO => '0444',
				__ATTR_RW => '0644', __ATTR_WO => '0200',
			);
			for my $c (calls($x, 'DEVICE_ATTR\w*|__ATTR\w*')) {
				my ($fn, @a) = @$c;
				if ($fn eq 'DEVICE_ATTR' || $fn eq '__ATTR') {
					push @attrs, [$a[0], $a[1] // '', "$fn($a[0], ...)"];
				} elsif (exists $implied{$fn}) {
					push @attrs, [$a[0], $implied{$fn}, "$fn($a[0])"];
				} elsif ($fn !~ /^(?:DEVICE_ATTR_IGNORE_LOCKDEP|__ATTR_NULL)$/) {
					push @out, "P\t$where: unknown attribute macro $fn()";
				}
			}
			# fipc's helper for them, fipc_idx_attr_init(attr, name,
			# idx, show, store): 0644 with a store, else 0444.  Its
			# call in the library, fipc_stats_attrs_init()'s, makes
			# the files of the driver that calls that, read below.
			for my $c (calls($x, 'fipc_idx_attr_init')) {
				my (undef, @a) = @$c;
				next unless @a == 5 && $devdir ne '-';
				my $mode = $a[4] eq 'NULL' ? '0444' : '0644';
				$x .= "\n.attr.mode = $mode;\n.attr.name = $a[1];\n";
			}
			# A driver's counters, fipc_stats_attrs_init(&KIND,
			# attrs, files, show), KIND = { .names = NAMES, ... }
			# and NAMES[] in any of the module's files: a read-only
			# file per { "name"[, true] } entry, those marked true
			# going to debugfs instead.
			for my $c (calls($x, 'fipc_stats_attrs_init')) {
				my (undef, $kind, @rest) = @$c;
				next unless @rest == 3 && $kind =~ /^&\s*(\w+)$/;
				$kind = $1;
				my ($tab) = $all =~ /\b\Q$kind\E\s*=\s*\{[^}]*?\.names\s*=\s*(\w+)/s;
				if (!defined $tab) {
					push @out, "P\t$where: cannot find the .names of $kind";
					next;
				}
				my ($init) = $all =~ /\b\Q$tab\E\s*\[[^\]]*\]\s*=\s*\{(.*?)\}\s*;/s;
				if (!defined $init) {
					push @out, "P\t$where: cannot find the names of $tab\[]";
					next;
				}
				my $n = 0;
				while ($init =~ /\{\s*"(\w+)"\s*(?:,\s*(true|false)\s*)?\}/g) {
					$n++;
					push @attrs, [$1, '0444', "$tab\[]"] unless ($2 // '') eq 'true';
				}
				push @out, "P\t$where: $tab\[] has no names" unless $n;
			}
			my ($rt_mode) = $x =~ /\.attr\.mode\s*=\s*([^;]+);/;
			while ($x =~ /\.attr\.name\s*=\s*(?:(\w+)\s*\[[^\]]*\](?:\s*\.\s*(\w+))?|"([^"]+)")/g) {
				my ($arr, $field, $lit) = ($1, $2, $3);
				if (!defined $rt_mode) {
					push @out, "P\t$where: run-time attribute without .attr.mode";
					last;
				}
				if (defined $lit) {
					push @attrs, [$lit, $rt_mode, ".attr.name = \"$lit\""];
					next;
				}
				my ($init) = $x =~ /\b\Q$arr\E\s*\[[^\]]*\]\s*=\s*\{(.*?)\}\s*;/s;
				if (!defined $init) {
					push @out, "P\t$where: cannot find the names of $arr\[]";
					next;
				}
				# <array>[i].<field>: the strings of .<field> = "...".
				my @names = defined $field ?
					$init =~ /\.\s*\Q$field\E\s*=\s*"([^"]*)"/g :
					$init =~ /"([^"]*)"/g;
				push @out, "P\t$where: $arr\[] has no names" unless @names;
				push @attrs, [$_, $rt_mode, "$arr\[]"] for @names;
			}
			if (@attrs) {
				my @groups;
				while ($x =~ /\bstruct\s+attribute_group\s+\w+(?:\s*\[[^\]]*\])?\s*=\s*\{(.*?)\}\s*;/sg) {
					my $g = $1;
					push @groups, $1 if $g =~ /\.name\s*=\s*"([^"]+)"/;
				}
				my $sub = @groups ? "/$groups[0]" : '';
				if (@groups > 1) {
					push @out, "P\t$where: several named attribute groups (@groups): the checker cannot tell which holds what";
				} elsif ($devdir eq '-') {
					push @out, "P\t$where: device attributes, but no device directory is known for $dir (see modules= in $0)";
				} else {
					for my $a (@attrs) {
						my ($name, $mode, $how) = @$a;
						if ($name !~ /^\w+$/) {
							push @out, "P\t$where: cannot read the attribute name of $how";
							next;
						}
						$add->("$devdir$sub/$name", $mode);
					}
				}
			}

			# debugfs files.
			for my $c (calls($x, 'debugfs_create_\w+')) {
				my ($fn, $name, $mode) = @$c;
				next if $fn =~ /^debugfs_create_(?:dir|symlink|automount)$/;
				if ($dbgdir eq '-') {
					push @out, "P\t$where: $fn(), but no debugfs directory is known for $dir (see modules= in $0)";
				} elsif (($name // '') !~ /^"(\w[\w.-]*)"$/) {
					push @out, "P\t$where: $fn() with a name that is not a plain string";
				} else {
					$add->("$dbgdir/$1", $mode // '');
				}
			}
		}
	}
}
push @out, "P\tno sysfs file found in the code: the checker's patterns need updating" unless $total;
print "$_\n" for @out;
PERL
)

# --- the doc: "D<TAB>path<TAB>line<TAB>access<TAB>missing fields" and
# "P<TAB>problem" ---
docout=$(perl - "$doc" <<'PERL'
use strict;
use warnings;

my $doc = shift @ARGV;
open(my $fh, '<', $doc) or die "check-sysfs-abi: cannot read $doc: $!\n";
my @req = qw(Since Access Type Description);
my (@entries, $cur, $in_what, $last);
while (my $l = <$fh>) {
	chomp $l;
	if ($l =~ /^What:/) {
		if ($l !~ /^What:\s+(\/\S+)\s*$/) {
			print "P\tdoc line $.: unreadable What: line\n";
			next;
		}
		if (!$cur || !$in_what) {
			$cur = { whats => [], f => {} };
			push @entries, $cur;
		}
		push @{$cur->{whats}}, [$1, $.];
		$in_what = 1;
		$last = undef;
		next;
	}
	$in_what = 0;
	if ($l =~ /^(?:#|```)/ || !$cur) {
		$cur = undef;
		next;
	}
	if ($l =~ /^([A-Z][A-Za-z]*):\s*(.*)$/) {
		$last = $1;
		$cur->{f}{$last} = $2;
	} elsif ($l =~ /^\s+\S/ && defined $last) {
		$cur->{f}{$last} .= " $l";
	} elsif ($l =~ /\S/) {
		$last = undef;
	}
}
close $fh;
my %seen;
for my $e (@entries) {
	my @missing = grep { ($e->{f}{$_} // '') !~ /\S/ } @req;
	my ($acc) = ($e->{f}{Access} // '') =~ /^\s*(read-only|read-write|write-only)\b/;
	for my $w (@{$e->{whats}}) {
		my ($path, $line) = @$w;
		if ($seen{$path}) {
			print "P\tdoc line $line: $path documented twice (also line $seen{$path})\n";
			next;
		}
		$seen{$path} = $line;
		print join("\t", 'D', $path, $line, $acc // '?', join(',', @missing)), "\n";
	}
}
PERL
)

pass=0 fail=0
problem() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# The code's files (E), then the document's entries (D); P: a problem.
declare -A want_access want_src doc_line doc_access doc_missing
wanted=()
documented=()
while IFS=$'\t' read -r kind a b c d; do
	case $kind in
	E)
		if [ -n "${want_access[$a]+set}" ]; then
			[ "${want_access[$a]}" = "$b" ] ||
				problem "$a: declared twice with different modes ($c, ${want_src[$a]})"
			continue
		fi
		want_access[$a]=$b
		want_src[$a]=$c
		wanted+=("$a")
		;;
	D)
		doc_line[$a]=$b
		doc_access[$a]=$c
		doc_missing[$a]=$d
		documented+=("$a")
		;;
	P) problem "$a" ;;
	esac
done <<<"$code"$'\n'"$docout"

rel=${doc#"$top"/}
for path in "${wanted[@]}"; do
	if [ -z "${doc_line[$path]+set}" ]; then
		problem "$path (${want_src[$path]}): no What: entry in $rel"
	elif [ -n "${doc_missing[$path]}" ]; then
		problem "$path ($rel line ${doc_line[$path]}): entry lacks ${doc_missing[$path]//,/, }"
	elif [ "${doc_access[$path]}" != "${want_access[$path]}" ]; then
		problem "$path ($rel line ${doc_line[$path]}): Access says ${doc_access[$path]}, the code makes it ${want_access[$path]} (${want_src[$path]})"
	else
		pass=$((pass + 1))
	fi
done
for path in "${documented[@]}"; do
	[ -n "${want_access[$path]+set}" ] ||
		problem "$path ($rel line ${doc_line[$path]}): documented, but the code creates no such file"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
