"""contract.py - every HTTP answer the integration tests receive, checked
against schema/openapi.yaml (OpenAPI 3.1).

The validator: Debian's python3-jsonschema (Draft 2020-12, the dialect of
OpenAPI 3.1's schemas) over the description as python3-yaml reads it, with
its $refs (components and schema/report.schema.json) resolved. No packaged
OpenAPI-3.1 response validator exists in Debian, so this thin layer does the
OpenAPI part itself: it finds the operation by path template and method, the
response by status (an exact code, else its range such as 4XX, else
default), the media type by the answer's Content-Type, and validates the
body with the response's schema. It fails when:

- the path is an API path (/api/..., /healthz, /metrics) the description
  does not have, unless the answer is the documented 404 for unknown paths;
- the method is not documented on the path, unless the answer is the
  documented 405 whose Allow names exactly the path's documented methods;
- the status is not documented for the operation;
- the Content-Type is not one the response documents, a documented body is
  missing (or a bodiless response has one), or the body does not match the
  schema; a documented header present with a value its schema refuses.

check() raises ContractError (an AssertionError, so the test fails where the
request was made) and records it in violations, which harness.main() reports
again after the tests ran: a violation in a helper thread is not lost.
"""
import json
import os
import re
import threading
import urllib.parse
import warnings

import jsonschema
import yaml

SOURCE = os.environ.get("SCHEDIO_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
OPENAPI = os.path.join(SOURCE, "schema", "openapi.yaml")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

violations = []
checked = {}  # (operationId or "-", status) -> answers checked, for the summary harness.main() prints
_lock = threading.Lock()
_contract = None


class ContractError(AssertionError):
    """An answer that schema/openapi.yaml does not describe."""


def is_api_path(path):
    """The paths the server's router answers (server/http/route.c); others are the dashboard's files."""
    return path.startswith("/api/") or path in ("/healthz", "/metrics")


def _json_pointer(doc, pointer):
    for part in pointer.lstrip("/").split("/"):
        if not part:
            continue
        part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


class Contract:
    """schema/openapi.yaml, loaded once: find() and check()."""

    def __init__(self, path=OPENAPI):
        self.path = os.path.abspath(path)
        with open(self.path) as f:
            self.doc = yaml.safe_load(f)
        if not str(self.doc.get("openapi", "")).startswith("3.1."):
            raise ContractError(f"{path}: openapi {self.doc.get('openapi')!r}, this checker reads 3.1")
        self.base = "file://" + self.path
        store = {self.base: self.doc}
        report = os.path.join(os.path.dirname(self.path), "report.schema.json")
        with open(report) as f:
            rep = json.load(f)
        report_uri = "file://" + report
        store[report_uri] = rep
        if "$id" in rep:  # refs inside it resolve against its (relative) $id
            store[urllib.parse.urljoin(report_uri, rep["$id"])] = rep
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver: the API of Debian's jsonschema 4.10
            self.resolver = jsonschema.RefResolver(self.base, self.doc, store=store)
        self.templates = []  # (segments, template), literal paths first
        for template in self.doc["paths"]:
            self.templates.append((template[1:].split("/"), template))
        self.templates.sort(key=lambda t: sum(s.startswith("{") for s in t[0]))

    def deref(self, obj):
        """Follows a Reference Object (components) to what it names."""
        seen = 0
        while isinstance(obj, dict) and "$ref" in obj and seen < 16:
            ref = obj["$ref"]
            if not ref.startswith("#/"):
                raise ContractError(f"reference {ref!r} outside the description")
            obj = _json_pointer(self.doc, ref[1:])
            seen += 1
        return obj

    def find(self, path):
        """The path template that serves a request path (no query), or None."""
        segs = path[1:].split("/")  # a trailing slash is one more (empty) segment, as the router sees it
        for tsegs, template in self.templates:
            if len(tsegs) != len(segs):
                continue
            if all((t.startswith("{") and t.endswith("}") and s) or t == s for t, s in zip(tsegs, segs)):
                return template
        return None

    def validate_schema(self, schema, value, where):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            v = jsonschema.Draft202012Validator(schema, resolver=self.resolver)
            errs = sorted(v.iter_errors(value), key=lambda e: list(e.absolute_path))
        if errs:
            shown = "; ".join(f"at /{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errs[:5])
            raise ContractError(f"{where}: {len(errs)} schema error(s): {shown}")

    def error_body(self, where, ctype, body):
        schema = self.doc["components"]["schemas"]["Error"]
        if ctype != "application/json":
            raise ContractError(f"{where}: Content-Type {ctype!r}, the Error schema is application/json")
        self.validate_schema(schema, _parse_json(where, body), where)

    def check(self, method, path, status, headers, body):
        """Raises ContractError when the answer is not as documented. headers: lower-case names."""
        path = urllib.parse.urlsplit(path).path
        if not is_api_path(path):
            return None
        method = method.upper()
        where = f"{method} {path} -> {status}"
        ctype = (headers.get("content-type") or "").split(";")[0].strip().lower()
        template = self.find(path)
        if template is None:
            if status != 404:
                raise ContractError(f"{where}: the server answers a path schema/openapi.yaml does not document")
            self.error_body(where, ctype, body)
            return None
        item = self.doc["paths"][template]
        documented = {m.upper() for m in METHODS if m in item}
        if "GET" in documented:
            documented.add("HEAD")  # the router answers HEAD wherever GET is (server/http/route.c)
        op_method = "get" if method == "HEAD" else method.lower()
        if op_method not in item:
            if status != 405:
                raise ContractError(f"{where}: {method} is not documented on {template}")
            allow = {m.strip() for m in (headers.get("allow") or "").split(",") if m.strip()}
            if allow != documented - {"HEAD"}:
                raise ContractError(f"{where}: Allow {sorted(allow)}, documented {sorted(documented - {'HEAD'})}")
            self.error_body(where, ctype, body)
            return None
        op = item[op_method]
        responses = op.get("responses", {})
        key = str(status)
        if key not in responses:
            key = f"{key[0]}XX" if f"{key[0]}XX" in responses else "default"
        if key not in responses:
            raise ContractError(f"{where}: status {status} is not documented for {op.get('operationId', template)}"
                                f" (documented: {', '.join(sorted(responses))})")
        resp = self.deref(responses[key])
        where = f"{where} ({op.get('operationId')})"
        for name, h in (resp.get("headers") or {}).items():
            h = self.deref(h)
            value = headers.get(name.lower())
            if value is None:
                if h.get("required"):
                    raise ContractError(f"{where}: no {name} header")
                continue
            schema = h.get("schema", {})
            if schema.get("type") == "integer":
                try:
                    value = int(value)
                except ValueError:
                    raise ContractError(f"{where}: header {name}: {value!r} is not an integer") from None
            self.validate_schema(schema, value, f"{where}: header {name}")
        content = resp.get("content")
        if not content:
            if body and method != "HEAD":
                raise ContractError(f"{where}: a body ({len(body)} bytes) where none is documented")
            return op.get("operationId")
        if method == "HEAD":
            return op.get("operationId")
        media = content.get(ctype) or content.get(ctype.split("/")[0] + "/*") or content.get("*/*")
        if media is None:
            raise ContractError(f"{where}: Content-Type {ctype!r}, documented {sorted(content)}")
        schema = media.get("schema")
        if schema is None:
            return op.get("operationId")
        if ctype == "application/json" or ctype.endswith("+json"):
            value = _parse_json(where, body)
        elif ctype.startswith("text/"):
            try:
                value = body.decode("utf-8")
            except UnicodeDecodeError:
                raise ContractError(f"{where}: a text body that is not UTF-8") from None
        else:
            value = None  # binary (application/gzip): the media type is the contract
            if ctype == "application/gzip" and not body.startswith(b"\x1f\x8b"):
                raise ContractError(f"{where}: application/gzip without the gzip magic bytes")
        if value is not None:
            self.validate_schema(schema, value, where)
        return op.get("operationId")


def _parse_json(where, body):
    try:
        return json.loads(body)
    except ValueError as e:
        raise ContractError(f"{where}: the body is not JSON ({e}): {body[:200]!r}") from None


def contract():
    """The description, loaded on first use."""
    global _contract
    with _lock:
        if _contract is None:
            _contract = Contract()
        return _contract


def check(method, path, status, headers, body):
    """Checks one answer; records and raises a violation. Returns the operationId (None off the operations)."""
    try:
        op = contract().check(method, path, status, headers, body)
    except ContractError as e:
        with _lock:
            violations.append(str(e))
        raise
    if is_api_path(urllib.parse.urlsplit(path).path):
        with _lock:
            checked[(op or "-", status)] = checked.get((op or "-", status), 0) + 1
    return op


def summary():
    """One line: how many answers were checked, over how many operations and statuses."""
    ops = {op for op, _ in checked if op != "-"}
    return (f"contract: {sum(checked.values())} answers checked against schema/openapi.yaml "
            f"({len(ops)} operations, {len(checked)} operation/status pairs), {len(violations)} violations")


def check_raw(method, path, raw):
    """Checks an answer read off a socket as bytes (status line, headers, body; Content-Length or close)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/1\.[01] (\d{3})", lines[0])
    if not m:
        raise ContractError(f"{method} {path}: not an HTTP answer: {raw[:100]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _unchunk(body)
    elif "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return check(method, path, int(m.group(1)), headers, body)


def read_answer(sock):
    """Reads one HTTP answer off a socket: its head, then Content-Length bytes of body (or until close)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.search(rb"\r\ncontent-length:\s*(\d+)", head, re.I)
    while m and len(body) < int(m.group(1)):
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def _unchunk(data):
    out = b""
    while data:
        size, _, rest = data.partition(b"\r\n")
        n = int(size.split(b";")[0] or b"0", 16)
        if n == 0:
            break
        out += rest[:n]
        data = rest[n + 2:]
    return out
