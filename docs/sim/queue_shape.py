#!/usr/bin/env python3
"""Where a schedule loses utilisation, from psched-sim's per-job CSVs (--csv-dir).

For each CSV given (e.g. one EASY and one auction run of the same workload and seed):
  - the mean size (slots) of the first WINDOW jobs still queued, sampled every 300 s while at
    least WINDOW jobs wait: the jobs an auction round of that window can choose from;
  - mean wait by job size (nodes' worth of cores: 1-4, 5-8, 9-12, 13-16) and kind (cpu / gpu);
  - busy cores and busy GPUs per time bucket, in % of the machine;
  - idle core-days while at least one job waits: what a queue without backfilling loses
    while its head waits for room (the machine's idle time that a queue could have used).

Usage: queue_shape.py [--window 100] [--bucket 900] [--cores 1024] [--gpus 256] CSV...
  --window 0 and --bucket 0 leave out the window sampling and the busy lines (long traces).
"""
import argparse
import collections
import csv


def load(path):
    rows = list(csv.DictReader(open(path)))
    rows.sort(key=lambda r: int(r["id"]))
    return rows


def window_size(rows, window):
    end = max(float(r["end"]) for r in rows)
    samples = []
    for t in range(0, int(end), 300):
        queued = [r for r in rows if float(r["start"]) > t][:window]
        if len(queued) < window:
            break
        samples.append(sum(int(r["cores"]) for r in queued) / window)
    return samples


def waits_by_size(rows, cores_per_node):
    groups = collections.defaultdict(list)
    for r in rows:
        k = -(-int(r["cores"]) // cores_per_node)
        size = "1-4" if k <= 4 else "5-8" if k <= 8 else "9-12" if k <= 12 else "13-16+"
        kind = "gpu" if int(r["gpus_per_node"]) > 0 else "cpu"
        groups[(kind, size)].append(float(r["wait"]) / 3600)
    return {key: (sum(v) / len(v), len(v)) for key, v in sorted(groups.items())}


def busy(rows, bucket, cores, gpus):
    events = []
    for r in rows:
        g = int(r["gpus_per_node"]) * int(r["nodes"])
        events += [(float(r["start"]), int(r["cores"]), g), (float(r["end"]), -int(r["cores"]), -g)]
    events.sort()
    end = max(t for t, _, _ in events)
    n = int(end // bucket) + 1
    core_s, gpu_s = [0.0] * n, [0.0] * n
    cur_c = cur_g = 0
    last = 0.0
    for t, dc, dg in events:
        a = last
        while a < t:
            b = min(t, (int(a // bucket) + 1) * bucket)
            core_s[int(a // bucket)] += cur_c * (b - a)
            gpu_s[int(a // bucket)] += cur_g * (b - a)
            a = b
        cur_c, cur_g, last = cur_c + dc, cur_g + dg, t
    return ([100 * x / (cores * bucket) for x in core_s], [100 * x / (gpus * bucket) for x in gpu_s], end)


def idle_while_waiting(rows, cores):
    # At equal times ends come first, then arrivals, then starts: a job that starts the
    # moment it arrives never counts as waiting.
    events = []
    for r in rows:
        c = int(r["cores"])
        events += [(float(r["submit"]), 1, 0, 1), (float(r["start"]), 2, c, -1),
                   (float(r["end"]), 0, -c, 0)]
    events.sort()
    busy_cores = waiting = 0
    last = events[0][0]
    idle = waiting_s = 0.0
    for t, _, dc, dw in events:
        if waiting > 0:
            idle += (cores - busy_cores) * (t - last)
            waiting_s += t - last
        busy_cores, waiting, last = busy_cores + dc, waiting + dw, t
    return idle / 86400, waiting_s / 86400


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", nargs="+")
    p.add_argument("--window", type=int, default=100)
    p.add_argument("--bucket", type=float, default=900)
    p.add_argument("--cores", type=int, default=1024, help="machine cores (Machine-S: 1024)")
    p.add_argument("--gpus", type=int, default=256, help="machine GPUs (Machine-S: 256)")
    p.add_argument("--cores-per-node", type=int, default=8)
    a = p.parse_args()
    for path in a.csv:
        rows = load(path)
        print(f"== {path}: {len(rows)} jobs, mean size {sum(int(r['cores']) for r in rows) / len(rows):.1f} slots")
        w = window_size(rows, a.window) if a.window > 0 else []
        if w:
            print(f"first {a.window} queued jobs: mean size {sum(w) / len(w):.1f} slots over {len(w)} samples")
        print("mean wait h by size (nodes' worth) and kind: " + ", ".join(
            f"{kind} {size}: {m:.2f} (n={n})" for (kind, size), (m, n) in waits_by_size(rows, a.cores_per_node).items()))
        idle, waiting = idle_while_waiting(rows, a.cores)
        print(f"idle core-days while jobs wait: {idle:.0f} over {waiting:.0f} days with a queue "
              f"({idle / waiting if waiting else 0:.1f} cores idle on average then)")
        if a.bucket > 0:
            c, g, end = busy(rows, a.bucket, a.cores, a.gpus)
            print(f"busy cores % per {a.bucket:.0f} s (makespan {end:.0f} s): " + " ".join(f"{x:.0f}" for x in c))
            print(f"busy GPUs  % per {a.bucket:.0f} s: " + " ".join(f"{x:.0f}" for x in g))


if __name__ == "__main__":
    main()
