"""test_server_headers.py - the security and cache headers (issue 19), read
off a real server over real HTTP: the dashboard page carries a
Content-Security-Policy that lets it load only its own scripts, styles and
icon and talk only to its own server, with nothing inline; every other
answer (API, errors, static files, /metrics) a policy that lets nothing load.
All carry nosniff and a Referrer-Policy. The chart libraries (versioned
names) are cached for a year as immutable; every other static file is
revalidated, and a revalidation is answered 304 while the file is unchanged
and 200 with a new ETag once it changed. The policy is checked against what
index.html really loads, so a new inline script or foreign source fails here
before it fails in a browser."""
import email.utils
import html.parser
import os
import shutil
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import Server, main  # noqa: E402

BUILD = os.environ.get("SCHEDIO_BUILD") or os.path.join(os.path.dirname(__file__), "..", "..", "build")
WEB = os.path.join(BUILD, "share", "schedio", "web")
YEAR = 365 * 86400


def csp(value):
    """The policy as {directive: [sources]}; a directive named twice is an error here."""
    out = {}
    for part in (value or "").split(";"):
        words = part.split()
        if not words:
            continue
        name = words[0].lower()
        if name in out:
            raise AssertionError(f"{name} twice in {value!r}")
        out[name] = words[1:]
    return out


class IndexScan(html.parser.HTMLParser):
    """What index.html makes the browser load or run: script and link
    targets, inline scripts, event-handler and style attributes."""

    def __init__(self):
        super().__init__()
        self.loads, self.inline_scripts, self.handlers, self.styles = [], 0, [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name, _ in attrs:
            if name.startswith("on"):
                self.handlers.append(f"<{tag} {name}>")
            if name == "style":
                self.styles.append(f"<{tag} style>")
        if tag == "script":
            self._in_script = "src" not in a
            if "src" in a:
                self.loads.append(("script", a["src"]))
        elif tag == "link" and a.get("href"):
            self.loads.append((a.get("rel", "link"), a["href"]))
        elif tag == "style":
            self.styles.append("<style>")

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts += 1

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False


class ServerHeaders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(WEB, "index.html")):
            raise unittest.SkipTest(f"no staged dashboard at {WEB}")
        # a copy of the dashboard, so the test may change a file under the running server
        cls.tmp = tempfile.mkdtemp(prefix="schedio-headers-")
        cls.web = os.path.join(cls.tmp, "web")
        shutil.copytree(WEB, cls.web)
        cls.srv = Server("--web-dir", cls.web).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def get(self, path, method="GET", **headers):
        return self.srv.request(method, path, headers=headers)

    def assert_common(self, r, what):
        self.assertEqual(r.header("x-content-type-options"), "nosniff", what)
        self.assertEqual(r.header("referrer-policy"), "same-origin", what)
        p = csp(r.header("content-security-policy"))
        self.assertEqual(p.get("frame-ancestors"), ["'none'"], f"{what}: no page may frame it")
        return p

    def assert_data_policy(self, r, what):
        """Not a page: opened on its own it may load and run nothing."""
        p = self.assert_common(r, what)
        self.assertEqual(p.get("default-src"), ["'none'"], f"{what}: {p}")
        self.assertNotIn("script-src", p, what)
        self.assertEqual(p.get("base-uri"), ["'none'"], what)
        self.assertEqual(p.get("form-action"), ["'none'"], what)

    def test_dashboard_page_policy_fits_what_it_loads(self):
        for path in ("/", "/host", "/ssd", "/experiments", "/submit"):
            r = self.get(path)
            self.assertEqual(r.status, 200, path)
            self.assertTrue(r.header("content-type").startswith("text/html"), path)
            p = self.assert_common(r, path)
            self.assertEqual(p.get("default-src"), ["'none'"], f"{path}: what is not named is refused")
            for d in ("script-src", "style-src", "img-src", "connect-src"):
                self.assertEqual(p.get(d), ["'self'"], f"{path}: {d} is this server only ({p.get(d)})")
            self.assertEqual(p.get("base-uri"), ["'none'"], path)
            self.assertEqual(p.get("form-action"), ["'self'"], path)
            self.assertEqual(r.header("cache-control"), "no-cache", path)

        # what index.html loads must be allowed by that policy: same-origin
        # paths only (no scheme, no host), no inline script, handler or style
        scan = IndexScan()
        scan.feed(self.get("/").body.decode())
        self.assertEqual(scan.inline_scripts, 0, "index.html has no inline script (script-src 'self' refuses it)")
        self.assertEqual(scan.handlers, [], "index.html has no inline event handler")
        self.assertEqual(scan.styles, [], "index.html has no inline style (style-src 'self' refuses it)")
        self.assertGreater(len(scan.loads), 5)
        for kind, url in scan.loads:
            self.assertTrue(url.startswith("/") and not url.startswith("//"), f"{kind} {url} is not from this server")
            self.assertEqual(self.get(url).status, 200, f"{kind} {url} is served")

    def test_static_files_are_revalidated_with_304(self):
        r = self.get("/app.js")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("content-type").startswith("text/javascript"))
        self.assert_data_policy(r, "/app.js")
        self.assertEqual(r.header("cache-control"), "no-cache", "a name that keeps across releases is revalidated")
        etag, modified = r.header("etag"), r.header("last-modified")
        self.assertRegex(etag, r'^"[0-9a-f]+-[0-9a-f]+"$')
        stamp = email.utils.parsedate_to_datetime(modified).timestamp()
        self.assertEqual(int(stamp), int(os.stat(os.path.join(self.web, "app.js")).st_mtime), "Last-Modified is the file's mtime")

        for name, hdr in (("its ETag", {"If-None-Match": etag}), ("a weak form in a list", {"If-None-Match": f'"x", W/{etag}'}),
                          ("*", {"If-None-Match": "*"}), ("its Last-Modified", {"If-Modified-Since": modified}),
                          ("a later date", {"If-Modified-Since": email.utils.formatdate(stamp + 3600, usegmt=True)})):
            for method in ("GET", "HEAD"):
                n = self.get("/app.js", method, **hdr)
                self.assertEqual(n.status, 304, f"{method} with {name}")
                self.assertEqual(n.body, b"", f"{method} with {name}: no body")
                self.assertEqual(n.header("etag"), etag, name)
                self.assertEqual(n.header("cache-control"), "no-cache", name)
                self.assert_data_policy(n, f"304 with {name}")

        for name, hdr in (("another ETag", {"If-None-Match": '"0-0"'}),
                          ("an earlier date", {"If-Modified-Since": email.utils.formatdate(stamp - 1, usegmt=True)}),
                          ("a date that is none", {"If-Modified-Since": "yesterday"}),
                          ("an obsolete date form", {"If-Modified-Since": "Sunday, 06-Nov-94 08:49:37 GMT"}),
                          ("a broken list", {"If-None-Match": f"{etag[1:]}"}),
                          # If-None-Match decides when both are sent (RFC 9110 13.2.2)
                          ("another ETag and a matching date", {"If-None-Match": '"0-0"', "If-Modified-Since": modified})):
            n = self.get("/app.js", **hdr)
            self.assertEqual(n.status, 200, f"with {name}")
            self.assertEqual(n.body, r.body, f"with {name}: the whole file")

        # a changed file: the old validators no longer match, the new ETag does
        path = os.path.join(self.web, "app.js")
        with open(path, "ab") as f:
            f.write(b"\n// changed\n")
        later = time.time() + 5
        os.utime(path, (later, later))
        n = self.get("/app.js", **{"If-None-Match": etag})
        self.assertEqual(n.status, 200, "a changed file is sent again")
        self.assertTrue(n.body.endswith(b"// changed\n"))
        self.assertNotEqual(n.header("etag"), etag, "its ETag changed")
        self.assertEqual(self.get("/app.js", **{"If-Modified-Since": modified}).status, 200, "and its date")
        self.assertEqual(self.get("/app.js", **{"If-None-Match": n.header("etag")}).status, 304, "the new ETag holds")

        # the page itself (index.html behind any page path) is revalidated the same way
        page = self.get("/ssd")
        self.assertEqual(self.get("/host", **{"If-None-Match": page.header("etag")}).status, 304,
                         "every page path shares index.html's ETag")

    def test_versioned_libraries_are_immutable(self):
        scan = IndexScan()
        scan.feed(self.get("/").body.decode())
        vendor = [u for k, u in scan.loads if u.startswith("/vendor/")]
        self.assertEqual(len(vendor), 2, f"Chart.js and its matrix plugin ({vendor})")
        for url in vendor:
            # the name carries the version package.json pins, so its content never changes
            self.assertRegex(url, r"^/vendor/[a-z.-]+-\d+\.\d+\.\d+/[a-z.-]+\.js$")
            r = self.get(url)
            self.assertEqual(r.status, 200, url)
            cc = [d.strip() for d in r.header("cache-control").split(",")]
            self.assertIn("immutable", cc, url)
            self.assertIn(f"max-age={YEAR}", cc, url)
            self.assertIsNone(r.header("etag"), f"{url}: nothing to revalidate")
            self.assert_data_policy(r, url)

    def test_api_and_error_answers(self):
        for method, path, status in (("GET", "/api/v1/hosts", 200), ("GET", "/healthz", 200), ("GET", "/metrics", 200),
                                     ("GET", "/api/v1/ssd/hwdb", 200), ("GET", "/api/v1/hosts/nope", 404),
                                     ("GET", "/api/v1/nope", 404), ("POST", "/api/v1/hosts", 405),
                                     ("GET", "/api/v1/fleet/runqlat?group_by=bogus", 400), ("GET", "/nope.js", 404),
                                     ("GET", "/../etc/passwd", 404), ("POST", "/api/v1/reports", 401)):
            r = self.srv.request(method, path, body=b"{}" if method == "POST" else None)
            self.assertEqual(r.status, status, f"{method} {path}: {r.body[:200]}")
            self.assert_data_policy(r, f"{method} {path}")
            if path.startswith("/api/") or path == "/healthz":
                self.assertIsNone(r.header("cache-control"), f"{method} {path}: API answers unchanged (golden test)")


if __name__ == "__main__":
    main()
