#!/usr/bin/env bash
# `dynashard boundaries` against the article's polars pipeline on the same generated titles file:
# median wall time and peak RSS of RUNS alternating runs of each, and how balanced each tool's
# boundaries are under the same routing rule.
#
#   bash benches/boundaries/run.sh
#
# Environment: LINES (5500000), SEED (42), SHARDS (21), RUNS (3), TIMER (gnu-time when
# /usr/bin/time -v works, else python-resource). Everything it makes lives
# under target/: the venv (target/bench-venv), the titles file and the outputs
# (target/bench-boundaries).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
here=benches/boundaries
lines=${LINES:-5500000}
seed=${SEED:-42}
shards=${SHARDS:-21}
runs=${RUNS:-3}
work=target/bench-boundaries
venv=target/bench-venv
python=$venv/bin/python
binary=target/release/dynashard
titles=$work/titles-$lines-$seed.txt
mkdir -p "$work/runs"

# 1. Python with polars, in a venv of its own.
if [ ! -x "$python" ]; then
    echo "== creating $venv" >&2
    python3 -m venv "$venv"
fi
if ! "$python" -c "import polars" 2>/dev/null; then
    echo "== installing polars into $venv" >&2
    "$python" -m pip install --quiet --upgrade pip
    "$python" -m pip install --quiet polars
fi

# 2. The release binary, built only when it is missing or older than one of the sources cargo
#    recorded for it (target/release/dynashard.d) or the lock file.
stale=
if [ -x "$binary" ] && [ -f "$binary.d" ]; then
    for source in $(cut -d: -f2- "$binary.d") Cargo.lock; do
        if [ "$source" -nt "$binary" ]; then
            stale=$source
            break
        fi
    done
fi
if [ ! -x "$binary" ] || [ ! -f "$binary.d" ] || [ -n "$stale" ]; then
    echo "== cargo build --release -p dynashard-cli" >&2
    cargo build --release -p dynashard-cli
fi

# 3. The titles file (deterministic: the name carries the line count and the seed).
if [ ! -s "$titles" ]; then
    echo "== generating $titles" >&2
    "$python" "$here/generate.py" --lines "$lines" --seed "$seed" --output "$titles"
fi
input_bytes=$(stat -c %s "$titles")

# 4. Timing: GNU time -v when it is there, else a Python wrapper reading the children's rusage.
timer=${TIMER:-}
if [ -z "$timer" ]; then
    if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
        timer=gnu-time
    else
        timer=python-resource
    fi
fi
measure() { # measure TIMEFILE STDOUT STDERR COMMAND...
    local timefile=$1 out=$2 err=$3
    shift 3
    if [ "$timer" = gnu-time ]; then
        /usr/bin/time -v -o "$timefile" "$@" >"$out" 2>"$err"
    else
        "$python" - "$timefile" "$out" "$err" "$@" <<'PY'
import resource, subprocess, sys, time
timefile, out, err, *command = sys.argv[1:]
start = time.monotonic()
with open(out, "wb") as stdout, open(err, "wb") as stderr:
    code = subprocess.run(command, stdout=stdout, stderr=stderr).returncode
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(timefile, "w") as f:
    f.write(f"Elapsed (wall clock) time (seconds): {wall:.3f}\n"
            f"Maximum resident set size (kbytes): {usage.ru_maxrss}\n"
            f"User time (seconds): {usage.ru_utime:.2f}\nSystem time (seconds): {usage.ru_stime:.2f}\n")
sys.exit(code)
PY
    fi
}

# Both tools read the file from the page cache.
cat "$titles" >/dev/null
echo "== $runs alternating runs each ($timer), $shards shards, $titles ($input_bytes bytes)" >&2
for i in $(seq 1 "$runs"); do
    measure "$work/runs/dynashard.$i.time" "$work/runs/dynashard.$i.json" "$work/runs/dynashard.$i.err" \
        "$binary" boundaries --shards "$shards" "$titles"
    measure "$work/runs/polars.$i.time" "$work/runs/polars.$i.json" "$work/runs/polars.$i.err" \
        "$python" "$here/polars_boundaries.py" --shards "$shards" "$titles"
    echo "   run $i done" >&2
done

# 5. Medians, ratios, and the balance of both sets of boundaries under one routing rule.
"$python" - "$work/runs" "$runs" "$titles" "$input_bytes" "$shards" "$timer" <<'PY'
import bisect, collections, json, os, re, statistics, sys, unicodedata

runs_dir, runs, titles, input_bytes, shards, timer = sys.argv[1:]
runs, input_bytes, shards = int(runs), int(input_bytes), int(shards)
tools = ["dynashard", "polars"]


def parse(path):
    text = open(path).read()
    elapsed = re.search(r"Elapsed \(wall clock\) time \(([^)]*)\): (\S+)", text).group(2)
    seconds = 0.0
    for part in elapsed.split(":"):
        seconds = seconds * 60 + float(part)
    field = lambda name: float(re.search(re.escape(name) + r": (\S+)", text).group(1))
    return {"wall": seconds, "rss": field("Maximum resident set size (kbytes)") * 1024,
            "cpu": field("User time (seconds)") + field("System time (seconds)")}


measured = {tool: [parse(f"{runs_dir}/{tool}.{i}.time") for i in range(1, runs + 1)] for tool in tools}
median = {tool: {key: statistics.median(m[key] for m in measured[tool]) for key in ("wall", "rss", "cpu")}
          for tool in tools}
outputs = {}
for tool in tools:
    texts = [open(f"{runs_dir}/{tool}.{i}.json", encoding="utf-8").read() for i in range(1, runs + 1)]
    if len(set(texts)) != 1:
        sys.exit(f"{tool}: the runs printed different boundaries")
    outputs[tool] = json.loads(texts[0])

# The routing rule of the article and of the library: shard = bisect_right(boundaries, key) - 1
# with key = NFKD(lower(title)); applied to every title (counted once per distinct key).
keys = collections.Counter()
with open(titles, encoding="utf-8") as f:
    for line in f:
        title = line.rstrip("\n")
        if title:
            keys[unicodedata.normalize("NFKD", title.lower())] += 1
total = sum(keys.values())
ideal = total / shards
balance = {}
for tool in tools:
    sizes = [0] * len(outputs[tool])
    for key, count in keys.items():
        sizes[bisect.bisect_right(outputs[tool], key) - 1] += count
    balance[tool] = {"boundaries": len(sizes), "distinct": len(set(outputs[tool])),
                     "max": max(sizes), "min": min(sizes), "empty": sizes.count(0)}

mib = 1024 * 1024
print()
print(f"input: {titles}: {input_bytes:,} bytes ({input_bytes / mib:.1f} MiB), {total:,} keys, "
      f"{len(keys):,} distinct after NFKD(lower); {shards} shards; {runs} runs each; timer: {timer}")
print()
print(f"{'':10} {'wall (median)':>14} {'CPU user+sys':>13} {'peak RSS (median)':>18} "
      f"{'max shard / ideal':>18} {'min shard / ideal':>18} {'empty':>6}")
for tool in tools:
    m, b = median[tool], balance[tool]
    print(f"{tool:10} {m['wall']:>13.2f}s {m['cpu']:>12.2f}s {m['rss'] / mib:>14.1f} MiB "
          f"{b['max'] / ideal:>17.4f}x {b['min'] / ideal:>17.4f}x {b['empty']:>6}")
print()
for tool in tools:
    walls = ", ".join(f"{m['wall']:.2f}s" for m in measured[tool])
    rss = ", ".join(f"{m['rss'] / mib:.1f}" for m in measured[tool])
    print(f"{tool} runs: wall {walls}; peak RSS {rss} MiB")
print(f"ideal shard: {ideal:,.1f} keys; largest shard: dynashard {balance['dynashard']['max']:,}, "
      f"polars {balance['polars']['max']:,}; boundaries (distinct): "
      f"dynashard {balance['dynashard']['boundaries']} ({balance['dynashard']['distinct']}), "
      f"polars {balance['polars']['boundaries']} ({balance['polars']['distinct']})")
print(f"dynashard peak RSS / input size: {median['dynashard']['rss'] / input_bytes:.2f}x")
print(f"polars peak RSS / input size: {median['polars']['rss'] / input_bytes:.2f}x")
print(f"speed ratio polars / dynashard (median wall): {median['polars']['wall'] / median['dynashard']['wall']:.2f}x")
PY
