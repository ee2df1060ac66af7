#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Continuous profiling (issue 19) through sysprofd as an unprivileged user:
#  1. three periods of 2 s while hot-functions runs: each a whole capture
#     that reads alone (its own /proc snapshot: hot_compute_a named in each),
#     the periods back to back (each starts where the last ended), a pprof
#     export of each that Google's pprof reads, at the low default rate;
#  2. retention: periods older than --keep-age and beyond --keep-size go,
#     the newest stays;
#  3. a killed sysprof-cli: every period stored is whole, a restart over the
#     same directory leaves them untouched, removes the temporary files and
#     makes the missing pprof exports;
#  4. one continuous session per user, more for the user polkit grants
#     org.gnome.sysprof3.continuous-many; SetCaptureFd and CreateRingBuffer
#     refused to a continuous session; an admin without fds (busctl) reads a
#     held period with ReadPeriod and lets it go with ForgetPeriods;
#  5. --push to a stand-in for Pyroscope's /ingest that checks every request
#     as the API documents it: each period's profile arrives and pprof
#     decodes it; a server that refuses (503) twice gets them after retries;
#     a server that hangs does not hold the recording up, and what it never
#     took stays queued for the next run, which sends it; a server refusing
#     with 400 gets each profile once, then it is dropped.
# Run under tools/with-sysprofd.sh:
#   test-continuous.sh SYSPROF_CLI SYSPROF_REPORT SYSPROF_DUMP HOT_FUNCTIONS HOTLIB PPROF SERVER
set -euo pipefail
cli=$(realpath "$1") report=$(realpath "$2") dump=$(realpath "$3") workload=$(realpath "$4") hotlib=$(realpath "$5")
pprof=$6 server=$(realpath "$7")
W=$SYSPROFD_TEST_WORKDIR
A=$DBUS_SYSTEM_BUS_ADDRESS
U=sysprof-test-allowed
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
fail () { echo "not ok - $*" >&2; exit 1; }

# The stand-in servers and workloads started in the background end with the test.
cleanup () { jobs -p | xargs -r kill 2> /dev/null || true; }
trap cleanup EXIT

echo "1..5"
mkdir -p "$W/bin" "$W/u" "$W/o"
install -m 755 "$cli" "$report" "$dump" "$workload" "$hotlib" "$W/bin/"
chown "$U" "$W/u"
chown sysprof-test-other "$W/o"
as () { runuser -u "$U" -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/u" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
as_other () { runuser -u sysprof-test-other -- env -i PATH="$W/bin:/usr/bin:/bin" HOME="$W/o" DBUS_SYSTEM_BUS_ADDRESS="$A" "$@"; }
captures () { find "$1" -maxdepth 1 -name 'sysprof-*.syscap' | sort; }
count () { captures "$1" | wc -l; }

# 1. Three periods, back to back, each whole.
D=$W/u/periods
as timeout 60 hot-functions 12 > /dev/null &
hot=$!
as timeout 60 sysprof-cli --continuous 2 --duration 7 --pprof --output-dir "$D" > "$W/out1" 2>&1 ||
  fail "sysprof-cli --continuous: $(tr '\n' '|' < "$W/out1")"
kill "$hot" 2> /dev/null || true
wait "$hot" 2> /dev/null || true
got=$(count "$D")
[ "$got" -ge 3 ] && [ "$got" -le 5 ] || fail "$got periods in 7 s of 2 s periods: $(tr '\n' '|' < "$W/out1")"
grep -q "sysprof-cli: $got period(s) stored" "$W/out1" || fail "summary: $(tr '\n' '|' < "$W/out1")"
prev_end=
for c in $(captures "$D"); do
  as sysprof-report top --format tsv --comm hot-functions "$c" > "$W/top" 2> "$W/err" || fail "top of $c: $(cat "$W/err")"
  # The last period may be short; every full one names the hot function.
  [ "$c" = "$(captures "$D" | tail -n 1)" ] || grep -q '^hot_compute_a' "$W/top" ||
    fail "$c does not read alone (no hot_compute_a): $(head -n 5 "$W/top" | tr '\n' '|')"
  [ -s "${c%.syscap}.pb.gz" ] || fail "no pprof export of $c"
  "$pprof" -raw "${c%.syscap}.pb.gz" > "$W/raw" 2> "$W/err" || fail "pprof cannot read ${c%.syscap}.pb.gz: $(cat "$W/err")"
  grep -q '^PeriodType: cpu nanoseconds' "$W/raw" || fail "pprof -raw: $(head -n 5 "$W/raw" | tr '\n' '|')"
  # Back to back: this period starts where the last ended (the headers'
  # times, of the same clock).
  as sysprof-dump "$c" 2> /dev/null | head -n 4 > "$W/head" || true
  begin=$(awk '/^Start time:/ { print $3 }' "$W/head") end=$(awk '/^End time:/ { print $3 }' "$W/head")
  [ -n "$begin" ] && [ -n "$end" ] && [ "$end" -gt "$begin" ] || fail "header of $c: $(tr '\n' '|' < "$W/head")"
  if [ -n "$prev_end" ]; then
    gap=$((begin - prev_end))
    [ "${gap#-}" -lt 50000000 ] || fail "a gap of $gap ns between periods"
  fi
  prev_end=$end
done
# The low default rate: 19 Hz per CPU, whatever the load.
samples=$(as sysprof-report top --format tsv "$(captures "$D" | sed -n 2p)" | awk -F'\t' 'NR > 1 { s += $3 } END { print s + 0 }')
cpus=$(nproc)
[ "$samples" -le $((19 * cpus * 3)) ] || fail "$samples samples in a 2 s period on $cpus CPUs: more than 19 Hz"
ok "$got periods of 2 s, back to back, each read alone, each with a pprof export ($samples samples in one)"

# 2. Retention by age and by size.
R=$W/u/retention
as mkdir -p "$R"
first=$(captures "$D" | head -n 1)
for stamp in 20200101T000000.000000Z 20200102T000000.000000Z; do
  as cp "$first" "$R/sysprof-$stamp.syscap"
  as touch -d '3 days ago' "$R/sysprof-$stamp.syscap"
done
as cp "$first" "$R/sysprof-20200103T000000.000000Z.syscap"
as timeout 60 sysprof-cli --continuous 1 --duration 3 --keep-age 2d --output-dir "$R" > "$W/out2" 2>&1 ||
  fail "retention run: $(tr '\n' '|' < "$W/out2")"
[ ! -e "$R/sysprof-20200101T000000.000000Z.syscap" ] && [ ! -e "$R/sysprof-20200102T000000.000000Z.syscap" ] ||
  fail "periods older than --keep-age stayed: $(ls "$R" | tr '\n' ' ')"
[ -e "$R/sysprof-20200103T000000.000000Z.syscap" ] || fail "a recent period was removed by age"
grep -q "removed .* old period" "$W/out2" || fail "retention not said: $(tr '\n' '|' < "$W/out2")"
size=$(stat -c %s "$first")
as timeout 60 sysprof-cli --continuous 1 --duration 4 --keep-size 1M --output-dir "$R" > "$W/out3" 2>&1 ||
  fail "size retention run: $(tr '\n' '|' < "$W/out3")"
total=$(du -cb "$R"/sysprof-*.syscap | tail -n 1 | cut -f1)
newest=$(captures "$R" | tail -n 1)
[ "$total" -le $((1048576 + $(stat -c %s "$newest"))) ] || fail "$total bytes kept with --keep-size 1M"
[ "$(count "$R")" -ge 1 ] || fail "the newest period was removed"
ok "retention: older than 2 d removed, 1M kept ($total bytes, periods of about $size)"

# 3. A killed sysprof-cli, then a restart over the same directory.
K=$W/u/killed
as timeout 60 hot-functions 20 > /dev/null &
hot=$!
as timeout 60 sysprof-cli --continuous 1 --pprof --output-dir "$K" > "$W/out4" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -d "$K" ] && [ "$(count "$K")" -ge 3 ] && break; sleep 0.1; done
pkill -KILL -u "$U" -f "sysprof-cli --continuous 1 --pprof --output-dir $K" || true
wait "$pid" 2> /dev/null || true
before=$(count "$K")
[ "$before" -ge 3 ] || fail "only $before periods before the kill: $(tr '\n' '|' < "$W/out4")"
for c in $(captures "$K"); do
  as sysprof-report top "$c" > /dev/null 2> "$W/err" || fail "a period of the killed run is damaged: $c: $(cat "$W/err")"
done
(cd "$K" && sha256sum sysprof-*.syscap) > "$W/sums"
# What the kill interrupted: a temporary file of the next period.
as touch "$K/.sysprof-partial-sysprof-29991231T000000.000000Z.syscap"
as timeout 60 sysprof-cli --continuous 1 --duration 3 --pprof --output-dir "$K" > "$W/out5" 2>&1 ||
  fail "restart: $(tr '\n' '|' < "$W/out5")"
kill "$hot" 2> /dev/null || true
wait "$hot" 2> /dev/null || true
(cd "$K" && sha256sum -c --quiet "$W/sums") || fail "the restart changed periods of the killed run"
after=$(count "$K")
[ "$after" -gt "$before" ] || fail "the restart added no period ($before, then $after)"
[ -z "$(find "$K" -name '.sysprof-partial-*')" ] || fail "temporary files left: $(ls -a "$K" | tr '\n' ' ')"
for c in $(captures "$K"); do
  [ -s "${c%.syscap}.pb.gz" ] || fail "no pprof export of $c after the restart"
done
ok "killed after $before periods: all whole, untouched by the restart, which added $((after - before)) and every export"

# 4. One continuous session per user, unless polkit says otherwise.
as timeout 60 sysprof-cli --continuous 1 --duration 6 --output-dir "$W/u/one" > "$W/out6" 2>&1 &
first_pid=$!
for _ in $(seq 100); do grep -q "recording continuously" "$W/out6" && break; sleep 0.1; done
if as timeout 30 sysprof-cli --continuous 1 --duration 2 --output-dir "$W/u/two" > "$W/out7" 2>&1; then
  fail "a second continuous session of the same user was allowed"
fi
grep -q "org.gnome.sysprof3.continuous-many" "$W/out7" || fail "the refusal does not say why: $(tr '\n' '|' < "$W/out7")"
wait "$first_pid" || fail "the first session failed: $(tr '\n' '|' < "$W/out6")"
as_other timeout 60 sysprof-cli --continuous 1 --duration 4 --output-dir "$W/o/one" > "$W/out8" 2>&1 &
other=$!
for _ in $(seq 100); do grep -q "recording continuously" "$W/out8" && break; sleep 0.1; done
as_other timeout 60 sysprof-cli --continuous 1 --duration 2 --output-dir "$W/o/two" > "$W/out9" 2>&1 ||
  fail "the granted user's second continuous session: $(tr '\n' '|' < "$W/out9")"
wait "$other" || fail "the granted user's first session: $(tr '\n' '|' < "$W/out8")"
# The session's own refusals, through busctl (a detached session).
path=$(as busctl --system call org.gnome.Sysprof3 /org/gnome/Sysprof3 org.gnome.Sysprof3.SessionManager \
  CreateSession 'a{sv}' 2 period u 3 detached b true | awk '{ print $2 }' | tr -d '"')
if as busctl --system call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session CreateRingBuffer u 0 > "$W/out10" 2>&1; then
  fail "CreateRingBuffer on a continuous session was allowed"
fi
grep -q "Continuous sessions take no ring buffers" "$W/out10" || fail "CreateRingBuffer: $(cat "$W/out10")"
as busctl --system call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session TakePeriods > "$W/out11" ||
  fail "TakePeriods before Start"
[ "$(cat "$W/out11")" = "a(uttth) 0" ] || fail "TakePeriods before Start: $(cat "$W/out11")"
# An admin over busctl (no fds): the periods of a detached session read with
# ReadPeriod and let go with ForgetPeriods.
B=(busctl --system --json=short)
as "${B[@]}" call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Start > /dev/null
for _ in $(seq 100); do
  held=$(as "${B[@]}" get-property org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session HeldPeriods |
    python3 -c 'import json, sys; print(" ".join(map(str, json.load(sys.stdin)["data"])))')
  [ -n "$held" ] && break
  sleep 0.2
done
[ "${held%% *}" = 1 ] || fail "HeldPeriods after a period: '$held'"
offset=0
: > "$W/u/read.syscap"
while :; do
  as "${B[@]}" call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session ReadPeriod utu 1 "$offset" 1048576 > "$W/chunk" ||
    fail "ReadPeriod 1 at $offset"
  got=$(python3 -c 'import json, sys
data = bytes(json.load(open(sys.argv[1]))["data"][0])
open(sys.argv[2], "ab").write(data)
print(len(data))' "$W/chunk" "$W/u/read.syscap")
  [ "$got" -gt 0 ] || break
  offset=$((offset + got))
done
as sysprof-report top "$W/u/read.syscap" > /dev/null 2> "$W/err" || fail "the period read over busctl: $(cat "$W/err")"
as "${B[@]}" call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session ForgetPeriods u 1 | grep -q '"data":\[1\]' ||
  fail "ForgetPeriods 1 did not let one go"
if as busctl --system call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session ReadPeriod utu 1 0 16 2> "$W/err"; then
  fail "a forgotten period was read"
fi
grep -q "not held" "$W/err" || fail "ReadPeriod of a forgotten period: $(cat "$W/err")"
as busctl --system call org.gnome.Sysprof3 "$path" org.gnome.Sysprof3.Session Close
ok "one continuous session per user, two for the granted user; ring buffers refused; a period of $offset bytes read over busctl"

# 5. Pushing to a Pyroscope-compatible endpoint.
start_server () { # DIR ARGS...
  mkdir -p "$1"
  python3 "$server" "$1" "$1/port" "${@:2}" 2> "$1/log" &
  for _ in $(seq 100); do [ -s "$1/port" ] && break; sleep 0.1; done
  [ -s "$1/port" ] || fail "the test server did not start: $(cat "$1/log")"
}
check_profiles () { # DIR WANT
  local got=0
  [ ! -s "$1/violations" ] || fail "requests not as Pyroscope's API defines them: $(cat "$1/violations")"
  for p in "$1"/profile-*.pb.gz; do
    [ -e "$p" ] || continue
    "$pprof" -raw "$p" > "$W/raw" 2> "$W/err" || fail "pprof cannot decode the pushed $p: $(cat "$W/err")"
    grep -q '^PeriodType: cpu nanoseconds' "$W/raw" || fail "pushed profile: $(head -n 3 "$W/raw" | tr '\n' '|')"
    grep -q "^name=sysprof.cpu{hostname=$(hostname)}$" "${p%.pb.gz}.query" || fail "name: $(cat "${p%.pb.gz}.query")"
    grep -q "^sampleRate=19$" "${p%.pb.gz}.query" || fail "sampleRate: $(cat "${p%.pb.gz}.query")"
    got=$((got + 1))
  done
  [ "$got" -ge "$2" ] || fail "$got profiles reached the server, want $2: $(cat "$1/log" | tail -n 5 | tr '\n' '|')"
  echo "$got"
}
S=$W/server-ok
start_server "$S" --fail-first 2
port=$(cat "$S/port")
as timeout 90 sysprof-cli --continuous 2 --duration 5 --push "http://127.0.0.1:$port" --output-dir "$W/u/push" > "$W/out12" 2>&1 ||
  fail "--push: $(tr '\n' '|' < "$W/out12")"
[ ! -s "$S/violations" ] || fail "requests not as Pyroscope's API defines them: $(cat "$S/violations")"
grep -q "trying again in" "$W/out12" || fail "503 was not retried: $(tr '\n' '|' < "$W/out12")"
stored=$(count "$W/u/push")
pushed=$(check_profiles "$S" "$stored")
grep -q "$pushed pushed" "$W/out12" || fail "summary: $(tail -n 1 "$W/out12")"
[ -z "$(ls "$W/u/push/push-queue")" ] || fail "profiles left queued after they were sent"
# A server that never answers: the periods are stored on time anyway, and
# what it did not take waits for the next run.
H=$W/server-hang
start_server "$H" --hang-first 1000
port=$(cat "$H/port")
start=$(date +%s)
as env SYSPROF_PUSH_TIMEOUT=2 timeout 90 sysprof-cli --continuous 1 --duration 4 --push "http://127.0.0.1:$port" \
  --output-dir "$W/u/hang" > "$W/out13" 2>&1 || fail "--push to a hanging server: $(tr '\n' '|' < "$W/out13")"
[ "$(count "$W/u/hang")" -ge 3 ] || fail "a hanging server held the recording up: $(count "$W/u/hang") periods"
queued=$(find "$W/u/hang/push-queue" -name '*.pb.gz' | wc -l)
[ "$queued" -ge 3 ] || fail "$queued profiles queued for a server that never answered"
grep -q "stay queued" "$W/out13" || fail "the queue left behind is not said: $(tail -n 2 "$W/out13" | tr '\n' '|')"
start_server "$W/server-later"
port=$(cat "$W/server-later/port")
as timeout 90 sysprof-cli --continuous 1 --duration 2 --push "http://127.0.0.1:$port" --output-dir "$W/u/hang" > "$W/out14" 2>&1 ||
  fail "the next run: $(tr '\n' '|' < "$W/out14")"
later=$(check_profiles "$W/server-later" $((queued + 1)))
# A server that refuses for good (400): each profile is tried once, then dropped.
F=$W/server-refuse
start_server "$F" --refuse-all
port=$(cat "$F/port")
as timeout 90 sysprof-cli --continuous 1 --duration 3 --push "http://127.0.0.1:$port" --output-dir "$W/u/refused" > "$W/out15" 2>&1 ||
  fail "--push to a refusing server: $(tr '\n' '|' < "$W/out15")"
grep -q "refused a profile (HTTP 400" "$W/out15" || fail "the refusal is not said: $(tr '\n' '|' < "$W/out15")"
[ -z "$(ls "$W/u/refused/push-queue")" ] || fail "refused profiles kept queued"
ok "pushed $pushed profiles after two 503s; a hanging server left $queued queued, sent by the next run ($later); 400 dropped"
