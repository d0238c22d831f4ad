"""test_fleet_link.py - the loop between the agents and the SSD database:
a host whose disk runs the recommended io.cost configuration for its model
shows "in_use" in GET /api/v1/hosts and /api/v1/hosts/{id}, one that runs
something else "differs", and a model the database has no results for
"no_data". Real server, real resctl-bench result, real HTTP."""
import glob
import gzip
import json
import os
import time
import unittest
import urllib.parse

from harness import DATA, Server, main

RESULTS = os.path.join(DATA, "resctl-bench")


def report(host, seq, disks):
    now = int(time.time() * 1000)
    return {"schema": "schedio.report.v1", "seq": seq,
            "host": {"id": host, "hostname": host, "kernel": "6.1.0", "cpus": 2},
            "interval": {"start_ms": now - 10000, "end_ms": now},
            "iocost": {"source": "tracepoints", "disks": disks, "cgroups": []}}


@unittest.skipUnless(glob.glob(os.path.join(RESULTS, "2.2", "Samsung*", "*.json.gz")),
                     "shared resctl-bench results are absent ($SCHEDIO_DATA/resctl-bench)")
class FleetLink(unittest.TestCase):
    def test_recommendation_state_per_disk(self):
        path = sorted(glob.glob(os.path.join(RESULTS, "2.2", "Samsung*", "*.json.gz")))[0]
        with Server("--open-ingest", "--open-submissions") as s:
            r = s.request("POST", "/api/v1/ssd/results", open(path, "rb").read())
            self.assertEqual(r.status, 201, r.body)
            sub = r.json()
            model_id = sub["model"].replace(" ", "_")
            m = s.get_json("/api/v1/ssd/models/" + urllib.parse.quote(model_id))
            sol = "naive" if "naive" in m["recommended"] else sorted(m["recommended"])[0]
            rec = m["recommended"][sol]
            good = {"dev": "259:0", "name": "nvme0n1", "model": sub["model"] + "   ", "fwrev": sub["fwrev"],
                    "enabled": True,
                    "cost_model": {"ctrl": "user", "model": "linear", **rec["model"]},
                    "qos": {"enable": 1, "ctrl": "user", **rec["qos"]}}
            other = dict(good, dev="259:1", name="nvme1n1",
                         cost_model=dict(good["cost_model"], rbps=rec["model"]["rbps"] * 2 + 1))
            unknown = {"dev": "8:0", "name": "sda", "model": "NO SUCH DISK", "fwrev": "1", "enabled": False}
            r = s.request("POST", "/api/v1/reports", report("link-host", 1, [good, other, unknown]))
            self.assertEqual(r.status, 200, r.body)

            want = {"nvme0n1": "in_use", "nvme1n1": "differs", "sda": "no_data"}
            hosts = s.get_json("/api/v1/hosts")["hosts"]
            self.assertEqual(len(hosts), 1)
            self.assertEqual({d["name"]: d["recommendation"] for d in hosts[0]["disks"]}, want)
            detail = s.get_json("/api/v1/hosts/link-host")
            self.assertEqual({d["name"]: d["recommendation"] for d in detail["disks"]}, want)


if __name__ == "__main__":
    main()
