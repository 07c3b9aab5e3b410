#!/usr/bin/env python3
"""An independent EASY-backfilling simulator that counts processors, for checking psched-sim.

Written from the EASY rule (Lifka 1995; Mu'alem and Feitelson 2001), not from psched's
code, and deliberately simple: the machine is a number of free processors, never a set
of nodes. It reads an SWF trace the way psched-sim's reader is documented to
(docs/sim/README.md), replays it with EASY, and compares each job's wait with the
per-job CSV psched-sim wrote for the same trace (psched-sim --csv-dir).

    psched-sim --swf data/traces/KTH-SP2-1996-2.1-cln.swf.gz --scheduler easy --csv-dir /tmp/k
    python3 docs/sim/easy_reference.py data/traces/KTH-SP2-1996-2.1-cln.swf.gz \\
        /tmp/k/KTH-SP2-1996-2.1-cln.swf.gz_s0_easy.csv

The rule, at every event time (jobs ending first, then arrivals, then one pass):
  1. start jobs from the head of the queue (arrival order) while they fit;
  2. if the head does not fit, its shadow time is the earliest estimated end (start +
     estimate, or now once overrun) of running jobs at which enough processors are free
     for it, and `extra` is what is free then beyond its need;
  3. a later job starts now if it fits now and either ends (by its estimate) by the
     shadow time, or needs no more than `extra` (which it then uses up).
"""
import csv
import gzip
import heapq
import sys


def read_swf(path):
    opener = gzip.open if path.endswith(".gz") else open
    nodes = procs = 0
    jobs = []
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith(";"):
                key, _, value = line[1:].partition(":")
                if key.strip() == "MaxNodes":
                    nodes = int(value.split()[0])
                elif key.strip() == "MaxProcs":
                    procs = int(value.split()[0])
                continue
            f_ = [float(x) for x in line.split()]
            runtime = f_[3]
            width = int(f_[4] if f_[4] > 0 else f_[7])
            if runtime <= 0 or width <= 0:
                continue
            estimate = f_[8] if f_[8] > 0 else runtime
            jobs.append((f_[1], int(f_[0]), width, runtime, estimate))
    machine = procs if procs > 0 else nodes
    jobs = [j for j in jobs if j[2] <= machine]
    jobs.sort(key=lambda j: j[0])  # stable: file order among equal submissions
    t0 = jobs[0][0]
    return machine, [(s - t0, i, w, r, e) for (s, i, w, r, e) in jobs]


def simulate(machine, jobs):
    free = machine
    queue = []  # indexes into jobs, arrival order
    running = []  # (estimated end, start order, width) of running jobs
    ends = []  # heap of (real end, index)
    start = {}
    nxt = 0
    order = 0
    while nxt < len(jobs) or ends:
        t = min(jobs[nxt][0] if nxt < len(jobs) else float("inf"),
                ends[0][0] if ends else float("inf"))
        while ends and ends[0][0] <= t:
            _, k = heapq.heappop(ends)
            free += jobs[k][2]
            running = [r for r in running if r[3] != k]
        while nxt < len(jobs) and jobs[nxt][0] <= t:
            queue.append(nxt)
            nxt += 1

        def launch(k):
            nonlocal free, order
            _, _, w, runtime, estimate = jobs[k]
            free -= w
            start[k] = t
            heapq.heappush(ends, (t + runtime, k))
            running.append((t + estimate, order, w, k))
            order += 1

        while queue and jobs[queue[0]][2] <= free:
            launch(queue.pop(0))
        if not queue or free == 0:
            continue
        head = jobs[queue[0]]
        shadow, extra, avail = None, 0, free
        widths = {}
        for r in running:  # jobs ending at the same time free their processors together
            widths[max(r[0], t)] = widths.get(max(r[0], t), 0) + r[2]
        for end in sorted(widths):
            avail += widths[end]
            if avail >= head[2]:
                shadow, extra = end, avail - head[2]
                break
        if shadow is None:
            continue
        kept = [queue[0]]
        for k in queue[1:]:
            _, _, w, _, estimate = jobs[k]
            if w <= free and t + estimate <= shadow:
                launch(k)
            elif w <= free and w <= extra:
                extra -= w
                launch(k)
            else:
                kept.append(k)
        queue = kept
    return {jobs[k][1]: start[k] - jobs[k][0] for k in start}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: easy_reference.py TRACE.swf[.gz] PSCHED_JOBS.csv")
    machine, jobs = read_swf(sys.argv[1])
    ref = simulate(machine, jobs)
    with open(sys.argv[2]) as f:
        psched = {int(r["id"]): float(r["wait"]) for r in csv.DictReader(f)}
    common = sorted(set(ref) & set(psched))
    same = sum(1 for i in common if abs(ref[i] - psched[i]) < 1e-6)
    mean_ref = sum(ref.values()) / len(ref)
    mean_psched = sum(psched.values()) / len(psched)
    print(f"jobs: reference {len(ref)}, psched-sim {len(psched)}, in both {len(common)}")
    print(f"mean wait: reference {mean_ref:.1f} s, psched-sim {mean_psched:.1f} s "
          f"({100 * (mean_psched / mean_ref - 1):+.2f} %)")
    print(f"identical per-job waits: {same} of {len(common)} ({100 * same / len(common):.2f} %)")


if __name__ == "__main__":
    main()
