#!/bin/bash
# fipcblk.h's "XenStore keys" (what other toolstacks and guests follow)
# against the code: each key a driver reads or writes, in the backend's or
# the frontend's directory, is documented; each documented key is used by
# a driver, the libxl patch of a series (tools/xl-patches.py) or
# tools/hotplug/, and written by the driver its section names;
# docs/protocol.md quotes only documented keys.
# A key is a string, a macro of one, a buffer snprintf() fills from a
# string, or an element of an array of strings (every string it holds)
# or of structures (<array>[i].<field>: every .<field> = "..." it holds).
# And docs/admin-guide.md's table "5. Module parameters": each parameter
# is in the module(s) named, writable if "live", read-only if "load only".
# A key the code names in a way this cannot read fails.  One line per key
# or parameter, then "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
exec perl - "$top" <<'PERL'
use strict;
use warnings;
use File::Glob ':bsd_glob';
my $top = shift;
my ($pass, $fail, %said, %code, %doc, %macro, %src, %tool, %param, %pmacro) = (0, 0);
sub ok { $pass++; print "ok   @_\n" }
sub bad { return if $said{"@_"}++; $fail++; print "FAIL @_\n" }
$SIG{__DIE__} = sub { bad("the checker: $_[0]" =~ s/\n$//r); print "$pass passed, $fail failed\n"; exit 1 };
sub slurp { open(my $f, '<', $_[0]) or die "cannot read $_[0]: $!\n"; local $/; return <$f> }
sub clean {	# comments out, strings kept, continuation lines joined
	return $_[0] =~ s{("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|/\*.*?\*/|//[^\n]*}{$1 // ' '}gser =~ s/\\\n/ /gr;
}
sub calls {	# [name, arguments...] of each call of a function matching $re
	my ($s, $re) = @_;
	my @res;
	while ($s =~ /\b($re)\s*\(/g) {
		my ($fn, $p, $depth, @a) = ($1, pos($s), 1, '');
		while ($s =~ /\G("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^"'(),]+|[(),])/gc) {
			$depth += $1 eq '(' ? 1 : $1 eq ')' ? -1 : 0;
			last if !$depth;
			$1 eq ',' && $depth == 1 ? push(@a, '') : ($a[-1] .= $1);
		}
		push @res, [$fn, map { s/^\s+|\s+$//gr } @a];
		pos($s) = $p;
	}
	return @res;
}

# --- the code ---
# xenbus calls naming a key: [argument of the directory, of the key
# (xenbus_gather: every third from it up to NULL), writes it].
my %kf = (xenbus_read => [1, 2, 0], xenbus_scanf => [1, 2, 0], xenbus_exists => [1, 2, 0],
	xenbus_directory => [1, 2, 0], xenbus_gather => [1, 2, 0], xenbus_read_unsigned => [0, 1, 0],
	xenbus_watch_pathfmt => [5, 4, 0], xenbus_printf => [1, 2, 1], xenbus_write => [1, 2, 1],
	xenbus_mkdir => [1, 2, 1], xenbus_rm => [1, 2, 1]);
# xenbus calls naming none of ours: the core's own "state", "online"
# (xenbus_dev_is_online()) and error node (error/<directory>/error, out
# of the device's directory); rings, event channels, transactions.
my $nokey = qr/^xenbus_(?:switch_state|read_driver_state|dev_is_online|dev_error|dev_fatal|strstate
	|(?:un)?map_ring\w*|setup_ring|teardown_ring|(?:alloc|free)_evtchn|transaction_(?:start|end)|register_\w+|unregister_driver)$/x;
# xfb_read_refs(be, q, "NAME", n, indexed, refs) (back_chan.c) reads
# queue-<q>/NAME<i> (i < n) if indexed, else queue-<q>/NAME: spelled out,
# as the form depends on an argument.
my %special = (xfb_read_refs => sub { "queue-<q>/$_[0]" . ($_[1] eq 'true' ? '<i>' : '') });
my %otherdir = (backend => 'frontend', frontend => 'backend');
for my $f (glob "$top/linux/drivers/block/xen-fipc-{back,front}/*.[ch]") {
	my $s = clean(slurp($f));
	$macro{$1} = $2 while $s =~ /^\s*#\s*define\s+(\w+)\s+"([^"]*)"/mg;
	$src{$f =~ s{^.*/xen-fipc-}{}r} = [$f =~ /-back\// ? 'backend' : 'frontend', $s];
}
sub dir_of {	# the directory expression $e names, in function body $b
	my ($e, $b, $own, $n) = @_;
	return $e =~ /otherend/ ? $otherdir{$own} : $e =~ /nodename/ ? $own :
	       $n < 4 && $e =~ /^\w+$/ && $b =~ /\b\Q$e\E\s*=\s*([^;=][^;]*);/ ? dir_of($1, $b, $own, $n + 1) : undef;
}
sub put {	# a key, or format, as fipcblk.h spells it
	my ($rel, $own, $d, $k, $w) = @_;
	$k = $k =~ s{^%s/}{}r =~ s{^queue-%[ud]/}{queue-<q>/}r =~ s/%[ud]$/<i>/r;
	return bad("$rel: cannot read the key \"$k\"") if $k =~ /%/;
	$code{"$d/$k"}{f}{"xen-fipc-$rel"} = 1;
	$code{"$d/$k"}{w}{$own} = 1 if $w;
}
sub scan {	# every function's keys; returns whether it found new helpers
	my $new = 0;
	for my $rel (sort keys %src) {
		my ($own, $s) = @{$src{$rel}};
		while ($s =~ /^\w[^;{}]*?\b(\w+)\s*\(([^;{}]*?)\)\s*\{\n(.*?)^\}/msg) {
			my ($fn, $params, $b) = ($1, $2, $3);
			next if $special{$fn};
			my @p = map { /(\w+)\s*(?:\[[^\]]*\])?\s*$/ ? $1 : '' } split /,/, $params;
			for my $c (calls($b, join '|', 'xenbus_\w+', 'register_xenbus_watch', keys %kf, keys %special)) {
				my ($call, @a) = @$c;
				if ($special{$call}) {
					($a[2] // '') =~ /^"([\w-]+)"$/ ? put($rel, $own, $otherdir{$own}, $special{$call}->($1, $a[4] // ''), 0)
						: bad("$rel: $fn(): $call() with a name that is not a string");
					next;
				}
				unless ($kf{$call}) { bad("$rel: $fn() calls $call(): which key? (teach this check)") if $call !~ $nokey; next }
				my ($da, $ka, $w, $d) = @{$kf{$call}};
				bad("$rel: $fn(): cannot tell the directory of $call()"), next
					unless defined($d //= dir_of($a[$da] // '', $b, $own, 0));
				for (my $i = $ka; ($a[$i] // 'NULL') ne 'NULL'; $i += $call eq 'xenbus_gather' ? 3 : 99) {
					my $e = $a[$i];
					my ($pi) = grep { $p[$_] eq $e } 0 .. $#p;
					my @fmts = ($b =~ /\b(?:snprintf|scnprintf)\s*\(\s*\Q$e\E\s*,[^,]*,\s*"([^"]*)"/g,
						    $b =~ /\b\Q$e\E\s*=\s*kasprintf\s*\([^,]*,\s*"([^"]*)"/g);
					unshift @fmts, $e =~ /^"(.*)"$/ ? $1 : $macro{$e} // ();
					# an element of a file's array of key strings
					push @fmts, $1 =~ /"([^"]*)"/g
						if $e =~ /^(\w+)\s*\[[^\]]*\]$/ &&
						   $s =~ /\b\Q$1\E\s*\[[^\]]*\]\s*=\s*\{([^;]*?)\};/s;
					# the key field of an array of structures
					# (.field = "key" in each entry)
					if ($e =~ /^(\w+)\s*\[[^\]]*\]\s*\.\s*(\w+)$/) {
						my $fld = $2;
						push @fmts, $1 =~ /\.\s*\Q$fld\E\s*=\s*"([^"]*)"/g
							if $s =~ /\b\Q$1\E\s*\[[^\]]*\]\s*=\s*\{([^;]*?)\};/s;
					}
					put($rel, $own, $d, $_, $w) for @fmts;
					next if @fmts;
					bad("$rel: $fn(): cannot read the key $e of $call()") unless defined $pi;
					$new = $kf{$fn} = [undef, $pi, $w, $d] if defined $pi && !$kf{$fn};	# a helper
				}
			}
		}
	}
	return $new;
}
1 while scan();

# --- the documentation: "*   key, key (x), key   meaning" per section ---
my $h = 'xen/include/public/io/fipcblk.h';
my ($dir, $writer, $n);
for (split /\n/, slurp("$top/$h")) {
	$n++;
	if (/^ \* (Backend|Frontend) directory, written by the (\w+)/) {
		($dir, $writer) = (lc $1, $2);
	} elsif (!defined $dir || /^ \*\s*$/ || /^ \* -/) {
		$dir = undef;
	} elsif (/^ \*   (\S.*)$/) {
		my $t = $1;
		while ($t =~ /\G([a-z][\w<>\/-]*)(?:\s*\([^)]*\))?(,\s*|\s*$)?/gc) {
			bad("$h line $n: $dir/$1 documented twice") if $doc{"$dir/$1"};
			$doc{"$dir/$1"} = [$writer, $n];
			last unless $2 && $2 =~ /,/;
		}
	}
}
bad("$h: no XenStore key found") unless %doc;
# The libxl patch of each series (tools/xl-patches.py: the base, 4.17, and
# one per fix-up), then the hotplug scripts.
my @tools = map { my $s = $_; ["libxl-phy1 (Xen $s)", sub {
	my $t = qx("$top/tools/xl-patches.py" print $s);
	bad("tools/xl-patches.py print $s failed") if $? || $t eq '';
	$t }] } ('4.17', map { m{libxl-phy1-(.+)\.fixup$} } glob "$top/tools/libxl-phy1-*.fixup");
push @tools, map { my $p = $_; [$p =~ s{^\Q$top/\E}{}r, sub { slurp($p) }] } glob "$top/tools/hotplug/*";
for my $tl (@tools) {
	my ($rel, $s) = ($tl->[0], $tl->[1]->());	# libxl's writes, the script's ($XENBUS_PATH: backend)
	$tool{"$1end/$2"}{$rel} = 1 while $s =~ /^[+ ].*\bflexarray_append(?:_pair)?\(\s*(back|front)\s*,\s*"([\w-]+)"/mg;
	$tool{"backend/$1"}{$rel} = 1 while $s =~ /\$\{?XENBUS_PATH\}?\/([\w-]+)/g;
}
# Documented keys only code outside this tree uses: the xenbus core's
# (the other end, "online", "state"), and those libxl's device_disk_add()
# writes for every disk (the phy1 patches leave that part alone).
my %outside = ((map { $_ => 'the xenbus core' } qw(backend/frontend backend/frontend-id backend/online
	backend/state frontend/backend frontend/backend-id frontend/state)), map { $_ => "libxl's device_disk_add()" }
	qw(backend/type backend/removable backend/bootable backend/dev backend/device-type frontend/device-type));
for my $k (sort keys %{{%code, %doc}}) {
	my ($c, $d) = ($code{$k}, $doc{$k});
	my $users = join ', ', sort keys %{{%{$c->{f} // {}}, %{$tool{$k} // {}}}};
	if (!$d) {
		bad("$k ($users): not documented in $h");
	} elsif ($d->[0] ne 'toolstack' && !$c->{w}{$d->[0]}) {
		bad("$k: $h line $d->[1] says the $d->[0] writes it; xen-fipc-" . ($d->[0] =~ s/end$//r) . " does not");
	} elsif ($users || $outside{$k}) {
		ok("$k: " . ($users || "used by $outside{$k}"));
	} else {
		bad("$k: documented ($h line $d->[1]), but no driver, patch or hotplug script uses it");
	}
}
my %names = map {; my $k = s{^\w+/}{}r; ($k => 1, $k =~ s{^queue-<q>/}{}r => 1) } keys %doc, 'x/queue-<q>/';
my %quoted = map { $_ => 1 } grep { !/^xen-fipc-/ } slurp("$top/docs/protocol.md") =~ /`([a-z][\w<>-]*-[\w<>\/-]*)`/g;
my @unknown = grep { !$names{$_} } sort keys %quoted;
bad("docs/protocol.md quotes `$_`: no such key in $h") for @unknown;
ok('docs/protocol.md: the ' . keys(%quoted) . " key names it quotes are in $h") unless @unknown;

# --- docs/admin-guide.md, "5. Module parameters" ---
%pmacro = map { /^\s*#\s*define\s+(\w+)\([^)]*\)(.*module_param.*)$/mg } map { clean(slurp($_)) }
	glob "$top/{lib/fipc/include/fipc,linux/drivers/block/xen-fipc-*}/*.h";	# FIPC_PARAM_POLLERS() ...
for my $f (glob "$top/{lib/fipc,linux/drivers/block/xen-fipc-*}/*.c") {
	my $s = clean(slurp($f)) =~ s/^\s*#\s*define[^\n]*//mgr;
	$s .= join ";\n", '', map { $pmacro{$_->[0]} } calls($s, join('|', keys %pmacro) || 'NONE');
	$param{$f =~ /xen-fipc-(back|front)/ ? $1 : 'fipc'}{$_->[1]} = $_->[-1] for calls($s, 'module_param\w*');
}
my ($sec) = slurp("$top/docs/admin-guide.md") =~ /^## 5\. Module parameters\n(.*?)^## /ms;
bad('docs/admin-guide.md: no section "5. Module parameters"') unless $sec;
for (split /\n/, $sec // '') {
	next unless /^\|\s*(`.*?)\s*\|\s*(\w+)\s*\|[^|]*\|\s*(.*?)\s*\|$/;
	my ($mods, $eff, @bad) = ($2, $3);
	for my $p ($1 =~ /`(\w+)`/g) {
		for my $m ($mods eq 'both' ? ('back', 'front') : ($mods)) {
			my $mode = $param{$m}{$p} // '';
			push(@bad, "no $p in $m, or its mode is not octal"), next if $mode !~ /^0[0-7]*$/;
			my $w = oct($mode) & 0222;
			push @bad, "$m: $mode" if ($eff =~ /^live/ && !$w) || ($eff =~ /^load only/ && $w);
		}
		my $t = "docs/admin-guide.md section 5: $p ($mods, $eff)";
		@bad ? bad("$t: " . join('; ', splice @bad)) : ok($t);
	}
}
print "$pass passed, $fail failed\n";
exit($fail ? 1 : 0);
PERL
