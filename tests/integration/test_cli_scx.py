"""test_cli_scx.py - `schedio scx run` on the build machine, whose kernel has
no sched_ext: usage errors exit 2 with one line, and loading a scheduler
fails with one line that says why (the VM test, tests/vm/test_scx_sched.sh,
loads them for real on a kernel that has sched_ext)."""
import os
import re
import unittest

from harness import binary, main, run

HAS_SCX = os.path.exists("/sys/kernel/sched_ext/state")
BUILD = os.environ.get("SCHEDIO_BUILD") or os.path.join(os.path.dirname(__file__), "..", "..", "build")
SKIP_REASON = os.path.join(BUILD, "bpf", "scx", "skip-reason.txt")
NO_SCX = "schedio scx: this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT, Linux 6.12+)"


class ScxCli(unittest.TestCase):
    def test_usage_errors_exit_2_with_one_line(self):
        cases = [
            ["scx"], ["scx", "bogus"], ["scx", "run"], ["scx", "run", "rr"],
            ["scx", "run", "fifo", "llc"], ["scx", "run", "fifo", "--object", "x.bpf.o"],
            ["scx", "run", "fifo", "--steal", "always"], ["scx", "run", "fifo", "--domains", "0/1"],
            ["scx", "run", "llc", "--steal", "later"], ["scx", "run", "llc", "--steal", "after:0"],
            ["scx", "run", "fifo", "--timeout-ms", "0"], ["scx", "run", "fifo", "--timeout-ms", "30001"],
            ["scx", "run", "fifo", "--duration", "-1"], ["scx", "run", "fifo", "--steal", "never"],
            ["scx", "run", "llc", "--steal", "nevermore"], ["scx", "version", "now"],
            # --set and --map-size: --object only, NAME=VALUE, MAP=N with N 1..2^32-1
            ["scx", "run", "fifo", "--set", "nr_cpus=2"], ["scx", "run", "llc", "--map-size", "m=2"],
            ["scx", "run", "--object", "x.bpf.o", "--set", "novalue"],
            ["scx", "run", "--object", "x.bpf.o", "--set", "=1"],
            ["scx", "run", "--object", "x.bpf.o", "--map-size", "m"],
            ["scx", "run", "--object", "x.bpf.o", "--map-size", "=5"],
            ["scx", "run", "--object", "x.bpf.o", "--map-size", "m=0"],
            ["scx", "run", "--object", "x.bpf.o", "--map-size", "m=-1"],
            ["scx", "run", "--object", "x.bpf.o", "--map-size", "m=4294967296"],
        ]
        for args in cases:
            r = run([binary("schedio"), *args])
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))
        # An unknown flag: getopt's own line, then the usual one.
        r = run([binary("schedio"), "scx", "run", "fifo", "--bogus"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("bad command line", r.stderr)

    def test_help_describes_the_schedulers(self):
        r = run([binary("schedio"), "scx", "run", "--help"])
        self.assertEqual(r.returncode, 0)
        for word in ("fifo", "llc", "--timeout-ms", "--steal", "never", "--object", "--set", "--map-size"):
            self.assertIn(word, r.stdout)
        self.assertIn("scx", run([binary("schedio"), "--help"]).stdout)

    def test_version_names_a_libbpf_new_enough_for_sched_ext(self):
        r = run([binary("schedio"), "scx", "version"])
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.fullmatch(r"schedio scx: libbpf (\d+)\.(\d+) \(headers (\d+)\.(\d+), linked into schedio\)\n",
                         r.stdout)
        self.assertTrue(m, r.stdout)
        self.assertGreaterEqual((int(m[1]), int(m[2])), (1, 4))
        self.assertEqual((m[1], m[2]), (m[3], m[4]))
        r = run([binary("schedio"), "scx", "version", "extra"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("version", run([binary("schedio"), "scx", "--help"]).stdout)

    @unittest.skipIf(HAS_SCX, "this kernel has sched_ext")
    def test_no_sched_ext_is_one_line_and_nothing_loaded(self):
        built_in = NO_SCX
        if os.path.exists(SKIP_REASON):  # a build that could not make the schedulers says so
            with open(SKIP_REASON) as f:
                built_in = "schedio scx: built without the sched_ext schedulers: " + f.read().strip()
        for args, want in ((["fifo"], built_in), (["llc", "--steal", "after:100"], built_in),
                           (["llc", "--steal", "never"], built_in),
                           (["--object", "/nonexistent.bpf.o"], NO_SCX)):
            r = run([binary("schedio"), "scx", "run", *args])
            self.assertEqual(r.returncode, 1, (args, r.stderr))
            self.assertEqual(r.stderr.strip(), want, args)
            self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    main()
