"""test_ssd_cli.py - the SSD commands of `schedio` end to end against a real
server: submit (new, duplicate, error lines), models, config with fallback,
and apply against a fake sysfs tree, dry-run and writing into a fake cgroup
root (the kernel accepting the lines is tested in the VM)."""
import glob
import os
import shutil
import tempfile
import unittest

import concurrent.futures

import harness
from test_ssd_paging import result

RB = os.path.join(harness.DATA, "resctl-bench")
FILES = sorted(glob.glob(os.path.join(RB, "*", "*", "*.json.gz")))
SAMSUNG = "Samsung SSD 970 EVO 500GB"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def fake_sysfs(root):
    """nvme0n1: a known model (sysfs pads it); sda: unknown; loop0, ram0, a partition and dm-0: skipped."""
    write(f"{root}/block/nvme0n1/dev", "259:0\n")
    write(f"{root}/block/nvme0n1/device/model", SAMSUNG + "               \n")
    write(f"{root}/block/nvme0n1/device/firmware_rev", "2B2QEXE7\n")
    write(f"{root}/block/sda/dev", "8:0\n")
    write(f"{root}/block/sda/device/model", "QEMU HARDDISK   \n")
    write(f"{root}/block/sda/device/rev", "2.5+\n")
    write(f"{root}/block/sdb1/dev", "8:17\n")
    write(f"{root}/block/sdb1/partition", "1\n")
    write(f"{root}/block/sdb1/device/model", SAMSUNG + "\n")
    write(f"{root}/block/loop0/dev", "7:0\n")
    write(f"{root}/block/loop0/device/model", SAMSUNG + "\n")
    write(f"{root}/block/ram0/dev", "1:0\n")
    write(f"{root}/block/dm-0/dev", "253:0\n")


class SsdCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not FILES:
            raise unittest.SkipTest(f"no resctl-bench results in {RB} (shared data folder absent)")
        cls.srv = harness.Server().start()
        cls.token = cls.srv.add_token("t", "submit")
        cls.tmp = tempfile.mkdtemp(prefix="schedio-cli-")

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def cli(self, *args):
        return harness.run([harness.binary("schedio"), args[0], "--server", self.srv.url, *args[1:]])

    def test_1_submit_models_config(self):
        bad = os.path.join(self.tmp, "bad.json")
        write(bad, '{"not": "a result"}')
        r = self.cli("submit", "--token", self.token, *FILES, bad, os.path.join(self.tmp, "missing.json"))
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), len(FILES) + 2)
        for f, line in zip(FILES, lines):
            self.assertRegex(line, "^" + f + r": [0-9a-f]{32} new \S")
        self.assertIn("bad.json: error: wrong shape", lines[-2])
        self.assertIn("missing.json: error: No such file", lines[-1])
        r = self.cli("submit", "--token", self.token, FILES[0])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r": [0-9a-f]{32} duplicate ")
        r = self.cli("submit", FILES[0])
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing bearer token", r.stdout)

        r = self.cli("models", "samsung")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 2)
        self.assertRegex(r.stdout, r"Samsung_SSD_970_EVO_500GB\s+2\s+2B2QEXE7\s+bandwidth,isolated-bandwidth,")
        self.assertEqual(len(self.cli("models").stdout.splitlines()), 1 + 5)

        r = self.cli("config", SAMSUNG, "--dev", "259:0", "--solution", "naive")
        self.assertEqual(r.returncode, 0, r.stderr)
        want = self.srv.request("GET", "/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB/config?solution=naive&dev=259:0")
        self.assertEqual(r.stdout, want.body.decode())
        self.assertIn("solution naive", r.stderr)
        r = self.cli("config", "INTEL_SSDPEKKA256G7", "--solution", "isolation")
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("MAJ:MIN ctrl=user model=linear rbps="))
        self.assertIn("solution naive (the asked one is not in the database)", r.stderr)
        r = self.cli("config", "No Such Model")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no SSD model", r.stderr)
        self.assertEqual(self.cli("config").returncode, 2)
        self.assertEqual(self.cli("submit").returncode, 2)

    def test_2_apply(self):
        sysfs = os.path.join(self.tmp, "sys")
        fake_sysfs(sysfs)
        cg = os.path.join(self.tmp, "cgroup")
        write(f"{cg}/io.cost.model", "")
        write(f"{cg}/io.cost.qos", "")
        want = self.srv.request("GET", "/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB/config?dev=259:0").body.decode()
        model_line, qos_line = want.splitlines()

        r = self.cli("apply", "--dry-run", "--sysfs-root", sysfs, "--cgroup-root", cg)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout.splitlines()
        self.assertEqual(out[0], f"nvme0n1 259:0 ({SAMSUNG}, firmware 2B2QEXE7): solution isolated-bandwidth")
        self.assertEqual(out[1], f"  would write {cg}/io.cost.model: {model_line}")
        self.assertEqual(out[2], f"  would write {cg}/io.cost.qos: {qos_line}")
        self.assertEqual(out[3], "sda 8:0 (QEMU HARDDISK, firmware 2.5+): no recommendation in the database")
        self.assertEqual(len(out), 4)
        self.assertEqual(open(f"{cg}/io.cost.model").read(), "")

        r = self.cli("apply", "--sysfs-root", sysfs, "--cgroup-root", cg, "--solution", "naive")
        self.assertEqual(r.returncode, 0, r.stderr)
        naive = self.srv.request("GET", "/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB/config?dev=259:0&solution=naive").body.decode()
        self.assertEqual(open(f"{cg}/io.cost.model").read(), naive.splitlines(True)[0])
        self.assertEqual(open(f"{cg}/io.cost.qos").read(), naive.splitlines(True)[1])

        r = self.cli("apply", "--sysfs-root", sysfs, "--cgroup-root", os.path.join(self.tmp, "nope"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write io.cost", r.stderr)
        r = self.cli("apply", "--dry-run", "--sysfs-root", os.path.join(self.tmp, "nothing"))
        self.assertEqual(r.returncode, 1)



class SsdCliPages(unittest.TestCase):
    """`schedio models` over more models than one page of the server (1,000)."""
    N = 2150

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server().start()
        auth = {"Authorization": "Bearer " + cls.srv.add_token("t", "submit")}
        cls.names = [f"Pager {i:04d} {'XYZ'[i % 3]}" for i in range(cls.N)]
        with concurrent.futures.ThreadPoolExecutor(4) as ex:
            st = list(ex.map(lambda n: cls.srv.request("POST", "/api/v1/ssd/results", result(n, "P1"), auth).status,
                             cls.names))
        assert set(st) == {201}, set(st)
        cls.ids = sorted(n.replace(" ", "_") for n in cls.names)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def models(self, *args):
        r = harness.run([harness.binary("schedio"), "models", "--server", self.srv.url, *args])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("MODEL"))
        return [line.split()[0] for line in lines[1:]]

    def test_every_page_once(self):
        self.assertEqual(self.models(), self.ids)

    def test_query_and_limit(self):
        self.assertEqual(self.models("--limit", "5"), self.ids[:5])
        self.assertEqual(self.models("--limit", "1500", "pager"), self.ids[:1500])
        self.assertEqual(self.models("pager 001"), [i for i in self.ids if "Pager_001" in i])
        self.assertEqual(self.models("PAGER_2149"), ["Pager_2149_Y"])
        self.assertEqual(self.models("100%_"), [])

    def test_bad_limit(self):
        for bad in ("0", "-3", "x", "5x", ""):
            r = harness.run([harness.binary("schedio"), "models", "--server", self.srv.url, "--limit", bad])
            self.assertNotEqual(r.returncode, 0, bad)
            self.assertIn("--limit", r.stderr, bad)


if __name__ == "__main__":
    harness.main()
