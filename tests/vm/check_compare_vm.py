#!/usr/bin/python3
"""check_compare_vm.py - host side of test_compare_vm.sh.

OUT_DIR holds the real agent's reports of WINDOWS windows in the sid VM
(report-I.json), each reported as a host of its own (its own machine-id,
labels half=a|b and window=I), through each of which the same workload ran
next to busy loops under EEVDF, scx_fifo and EEVDF again, and the workload's
own round-trip times (pingpong-I-eevdf.txt, pingpong-I-fifo.txt).

The reports are posted to a real schedio-server (SQLite, loopback, real
HTTP); once it counts all their samples (they are minutes old, so the
minutes they fall in are rolled up again in the background), they are
compared through GET /api/v1/compare and the real `schedio compare` over
the reports' own time range (the guest's clock is the host's: qemu's RTC
starts from it):
  1. sched=scx_fifo against sched=eevdf at p50 is `worse` (CLI exit 1),
     and the other way round `better` (exit 0);
  2. EEVDF in the half=a windows against EEVDF in the half=b windows is
     neither `better` nor `worse` (exit 0 or 2).
Independent truths: each host's value in the answer is the p50 the agent
computed itself for that scheduler's samples (runqlat.by_scheduler), an
arm's value is their median, its samples their sum; and the workload's own
round trips (pingpong, its runs of all windows pooled) must be slower
under scx_fifo too.
Exit 0 when every check holds, 1 otherwise (each failure printed), and 3
when the only ones that failed are check 2's verdict: two arms of the same
scheduler are called different at the 95% level by chance about one time in
twenty, so test_compare_vm.sh then runs the windows once more."""
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness  # noqa: E402

failed = []
by_chance = []  # failures of the checks a sound comparison still fails by chance now and then
MIN_HOSTS = 5  # the comparison's own minimum per arm: fewer is inconclusive


def check(cond, what, chance=False):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        (by_chance if chance else failed).append(what)
    return cond


def ms(ns):
    return f"{ns / 1e6:.3f} ms" if ns is not None else "-"


def load_windows(out, windows):
    """Per window: host id, labels, the agent's own p50/count per scheduler, interval."""
    hosts = []
    for w in range(1, windows + 1):
        path = os.path.join(out, f"report-{w}.json")
        try:
            with open(path) as f:
                report = json.loads(f.read())
        except (OSError, ValueError) as e:
            check(False, f"window {w}: no report ({e})")
            continue
        split = {("eevdf" if e.get("ops") is None else e["ops"]): e
                 for e in report.get("runqlat", {}).get("by_scheduler", [])}
        h = {"window": w, "report": report, "id": report["host"]["id"],
             "labels": report["host"].get("labels", {}), "split": split,
             "start": report["interval"]["start_ms"], "end": report["interval"]["end_ms"]}
        check(set(split) == {"eevdf", "scx_fifo"},
              f"window {w}: samples under EEVDF and scx_fifo, nothing else ({sorted(split)})")
        want = {"half": "a" if w % 2 else "b", "window": str(w)}
        check(h["labels"] == want, f"window {w}: labels {h['labels']}")
        hosts.append(h)
    ids = [h["id"] for h in hosts]
    check(len(set(ids)) == len(ids) == windows, f"{windows} windows, each its own host ({len(set(ids))} ids)")
    return hosts


def pingpong_runs(out, w, sched):
    """Round-trip p50 (us) of each pingpong run of window w started under sched."""
    try:
        with open(os.path.join(out, f"pingpong-{w}-{sched}.txt")) as f:
            return [float(dict(kv.split("=", 1) for kv in line.split()[1:])["p50_us"])
                    for line in f if line.startswith("PINGPONG")]
    except OSError:
        return []


def median_or_none(v):
    return statistics.median(v) if v else None


def us(v):
    return f"{v:.0f} us" if v is not None else "-"


def query(a, b, frm, to):
    return "/api/v1/compare?" + urllib.parse.urlencode({"a": a, "b": b, "metric": "p50", "from": frm, "to": to})


def show(name, ans):
    print(f"{name}: verdict {ans.get('verdict')}, ratio {ans.get('ratio')}, ci {ans.get('ci')}"
          + (f", reason: {ans['reason']}" if ans.get("reason") else ""))
    for k in ("a", "b"):
        arm = ans.get(k, {})
        print(f"  {k} {arm.get('selector')}: {arm.get('hosts')} hosts, {arm.get('samples')} samples,"
              f" p50 {ms(arm.get('value_ns'))}; per host: "
              + " ".join(ms(p.get("value_ns")) for p in arm.get("per_host", [])))


def check_arm(name, arm, hosts, sched):
    """The arm against the agent's own figures for these hosts and scheduler."""
    own = {h["id"]: h["split"][sched] for h in hosts if sched in h["split"]}
    check(arm.get("hosts") == len(own) >= MIN_HOSTS,
          f"{name}: {arm.get('hosts')} hosts, want the {len(own)} windows (at least {MIN_HOSTS})")
    got = {p["host_id"]: p.get("value_ns") for p in arm.get("per_host", [])}
    want = {i: e["p50_ns"] for i, e in own.items()}
    off = {i: (got.get(i), want[i]) for i in want if got.get(i) != want[i]}
    check(not off and set(got) == set(want), f"{name}: each host's p50 is the agent's own for {sched} {off or ''}")
    med = statistics.median(want.values()) if want else None
    check(arm.get("value_ns") == med, f"{name}: value {ms(arm.get('value_ns'))} is the median of the hosts' {ms(med)}")
    n = sum(e["count"] for e in own.values())
    check(arm.get("samples") == n, f"{name}: {arm.get('samples')} samples, the agent counted {n}")


def cli(server, a, b, frm, to):
    r = subprocess.run([harness.binary("schedio"), "compare", "--server", server, "--a", a, "--b", b,
                        "--metric", "p50", "--from", str(frm), "--to", str(to)],
                       capture_output=True, text=True, timeout=60)
    print(f"$ schedio compare --a {a} --b {b} --metric p50 --from {frm} --to {to}  (exit {r.returncode})")
    print(r.stdout + r.stderr, end="")
    return r.returncode


def main(out, windows):
    hosts = load_windows(out, windows)
    if not hosts:
        return
    frm, to = min(h["start"] for h in hosts), max(h["end"] for h in hosts) + 1
    print(f"reports span [{frm}, {to}) ({(to - frm) / 1000:.1f} s)")
    # The workload's own view, a truth the agent has no part in: a few runs per window, so pooled.
    print("window half   runqueue p50 (agent): eevdf     fifo   pingpong round trip p50: eevdf     fifo")
    pooled = {"eevdf": [], "fifo": []}
    for h in hosts:
        runs = {s: pingpong_runs(out, h["window"], s) for s in pooled}
        for s in pooled:
            pooled[s] += runs[s]
        print(f"{h['window']:6} {h['labels'].get('half', '?'):4} {ms(h['split'].get('eevdf', {}).get('p50_ns')):>27}"
              f" {ms(h['split'].get('scx_fifo', {}).get('p50_ns')):>10} {us(median_or_none(runs['eevdf'])):>32}"
              f" {us(median_or_none(runs['fifo'])):>10}")
    pe, pf = median_or_none(pooled["eevdf"]), median_or_none(pooled["fifo"])
    check(pe is not None and pf is not None and pf > pe,
          f"the workload's own round trips are slower under scx_fifo: median run p50 {us(pf)} against {us(pe)}"
          f" ({len(pooled['fifo'])} and {len(pooled['eevdf'])} runs)")

    with harness.Server("--open-ingest") as srv:
        for h in hosts:
            r = srv.request("POST", "/api/v1/reports", json.dumps(h["report"]).encode(),
                            {"Content-Type": "application/json"})
            check(r.status in (200, 201, 202),
                  f"window {h['window']}: the server took the report ({r.status} {r.body[:200].decode(errors='replace')})")

        # The reports are minutes old, so the server takes them as late ones: the minutes they fall in
        # are redone from them in the background. Until then a window of whole minutes misses them.
        total = sum(e["count"] for h in hosts for e in h["split"].values())
        t = time.time()

        def counted():
            ans = srv.get_json(query("sched=scx_fifo", "sched=eevdf", frm, to))
            return ans["a"]["samples"] + ans["b"]["samples"] == total

        harness.wait_for(counted, timeout=180, what=f"the server to count the reports' {total} samples")
        print(f"the server counts all {total} samples of the reports after {time.time() - t:.1f} s")

        # 1. scx_fifo against EEVDF, and the other way round
        ab = srv.get_json(query("sched=scx_fifo", "sched=eevdf", frm, to))
        show("scx_fifo vs eevdf", ab)
        check(ab.get("verdict") == "worse", f"sched=scx_fifo against sched=eevdf at p50: {ab.get('verdict')}, want worse")
        check_arm("scx_fifo arm", ab.get("a", {}), hosts, "scx_fifo")
        check_arm("eevdf arm", ab.get("b", {}), hosts, "eevdf")
        check(ab.get("paired") is False, "one window for both arms: hosts resampled independently, not as pairs")
        check(cli(srv.url, "sched=scx_fifo", "sched=eevdf", frm, to) == 1, "schedio compare exits 1 (worse)")
        ba = srv.get_json(query("sched=eevdf", "sched=scx_fifo", frm, to))
        show("eevdf vs scx_fifo", ba)
        check(ba.get("verdict") == "better", f"sched=eevdf against sched=scx_fifo: {ba.get('verdict')}, want better")
        check(cli(srv.url, "sched=eevdf", "sched=scx_fifo", frm, to) == 0, "schedio compare exits 0 (better)")
        fair = srv.get_json(query("sched=scx_fifo", "sched=fair", frm, to))
        # (the bootstrap is seeded from the query's text, so only the interval may differ)
        check((fair.get("verdict"), fair.get("ratio"), fair["b"].get("hosts"), fair["b"].get("samples"))
              == (ab.get("verdict"), ab.get("ratio"), ab["b"].get("hosts"), ab["b"].get("samples")),
              "sched=fair selects what sched=eevdf does (same hosts, samples, ratio and verdict)")

        # 2. EEVDF against EEVDF: windows of half a against those of half b
        a_sel, b_sel = "sched=eevdf,label.half=a", "sched=eevdf,label.half=b"
        aa = srv.get_json(query(a_sel, b_sel, frm, to))
        show("eevdf half a vs eevdf half b", aa)
        check(aa.get("verdict") in ("no_difference", "inconclusive"),
              f"EEVDF windows against EEVDF windows: {aa.get('verdict')}, want neither better nor worse", chance=True)
        check_arm("eevdf half a", aa.get("a", {}), [h for h in hosts if h["labels"].get("half") == "a"], "eevdf")
        check_arm("eevdf half b", aa.get("b", {}), [h for h in hosts if h["labels"].get("half") == "b"], "eevdf")
        check(cli(srv.url, a_sel, b_sel, frm, to) in (0, 2), "schedio compare exits 0 or 2 (neither better nor worse)",
              chance=True)
        print(f"FIGURES: scx_fifo/eevdf p50 ratio {ab.get('ratio'):.3g} ci {ab.get('ci')}"
              f" ({ms(ab['a'].get('value_ns'))} vs {ms(ab['b'].get('value_ns'))}, {ab['a'].get('hosts')} hosts each);"
              f" eevdf a/b ratio {aa.get('ratio'):.3g} ci {aa.get('ci')} {aa.get('verdict')}"
              f" ({ms(aa['a'].get('value_ns'))} vs {ms(aa['b'].get('value_ns'))})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_compare_vm.py OUT_DIR WINDOWS")
    try:
        main(sys.argv[1], int(sys.argv[2]))
    except (AssertionError, KeyError, TypeError, ValueError, OSError, subprocess.SubprocessError) as e:
        check(False, f"unexpected answer: {e!r}")
    # The failures again, last, where a log cut in the middle still shows them.
    for what in failed + by_chance:
        print(f"failed: {what}")
    sys.exit(1 if failed else 3 if by_chance else 0)
