#!/usr/bin/env python3
"""Documentation coverage of Courier's public API, read from symbol graphs.

Counts every public declaration written in this repository (a symbol whose
location is a file under Core/, Plugins/ or Mappers/) and whether it carries a
doc comment of its own. Members that only fulfil a standard library protocol
(`==`, `hash(into:)`, `description`, ...) inherit that protocol's
documentation and are not counted, nor are members a type only inherits
(a protocol's default implementation seen on a conforming type). Prints a line per module and every
undocumented declaration; exits 1 if there is one.

    .ci/doc-coverage.py .build/symbol-graphs
"""
import json
import pathlib
import sys

WITNESSES = {
    "==(_:_:)", "!=(_:_:)", "<(_:_:)", "hash(into:)", "hashValue", "description", "debugDescription",
    "errorDescription", "failureReason", "recoverySuggestion", "helpAnchor", "errorUserInfo", "errorCode",
    "errorDomain", "encode(to:)", "init(from:)", "init(arrayLiteral:)", "init(stringLiteral:)",
    "init(unicodeScalarLiteral:)", "init(extendedGraphemeClusterLiteral:)", "init(integerLiteral:)",
    "init(rawValue:)", "rawValue", "makeIterator()", "next()", "localizedDescription", "id",
    "allCases",
}
ROOTS = ("/Core/", "/Plugins/", "/Mappers/")

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".build/symbol-graphs")
documented = total = 0
missing = []
for module_dir in sorted(p for p in root.iterdir() if p.is_dir()):
    seen = set()
    module_documented = module_total = 0
    for graph_file in sorted(module_dir.glob("*.symbols.json")):
        graph = json.loads(graph_file.read_text())
        for symbol in graph.get("symbols", []):
            uri = symbol.get("location", {}).get("uri", "")
            if not any(part in uri for part in ROOTS):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            title = symbol["names"]["title"]
            if title in WITNESSES:
                continue
            key = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in key:
                continue
            if key in seen:
                continue
            seen.add(key)
            module_total += 1
            if symbol.get("docComment", {}).get("lines"):
                module_documented += 1
            else:
                path = ".".join(symbol.get("pathComponents", [title]))
                line = symbol["location"].get("position", {}).get("line", 0) + 1
                file = uri.split("/work/", 1)[-1] if "/work/" in uri else uri
                missing.append(f"{module_dir.name}: {path}  ({file}:{line})")
    documented += module_documented
    total += module_total
    print(f"{module_dir.name:24} {module_documented:4} / {module_total:4} documented")
print(f"{'all':24} {documented:4} / {total:4} documented")
for item in missing:
    print("undocumented:", item)
sys.exit(1 if missing else 0)
