#!/usr/bin/env python3
"""Writes Fixtures/lottie/reference.tsv: the top-level facts of every parse-ok file of the Lottie
corpus, read with Python's own json module (the reference the Swift tests compare against).

    scripts/lottie-reference.py            # rewrite the TSV
    scripts/lottie-reference.py --check    # exit 1 if the committed TSV is stale

One row per animation: plain JSON and .tgs (gzip) files give one row (id "-"); dotLottie archives
give one row per animation listed in manifest.json (id = the manifest id). Missing values are "-".
"""
import csv, gzip, io, json, pathlib, sys, zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Fixtures" / "lottie"
OUT = ROOT / "reference.tsv"


def fmt(value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "-"
    if isinstance(value, (int, float)):
        return repr(value)
    return str(value)


def facts(doc):
    version = doc.get("v")
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        version = repr(version)
    elif not isinstance(version, str):
        version = None
    layers = doc.get("layers")
    assets = doc.get("assets")
    num = lambda key: doc.get(key) if isinstance(doc.get(key), (int, float)) else None
    return [fmt(version), fmt(num("fr")), fmt(num("ip")), fmt(num("op")), fmt(num("w")), fmt(num("h")),
            fmt(len(layers) if isinstance(layers, list) else None),
            fmt(len(assets) if isinstance(assets, list) else None)]


def animations(path):
    data = path.read_bytes()
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            manifest = json.loads(archive.read("manifest.json"))
            for entry in manifest["animations"]:
                for candidate in (f"animations/{entry['id']}.json", f"a/{entry['id']}.json"):
                    if candidate in names:
                        yield entry["id"], json.loads(archive.read(candidate))
                        break
                else:
                    raise SystemExit(f"{path}: no animation {entry['id']}")
    elif data[:2] == b"\x1f\x8b":
        yield "-", json.loads(gzip.decompress(data))
    else:
        yield "-", json.loads(data)


def rows():
    with open(ROOT / "FILES.tsv", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if not row["expect"].startswith("parse-ok"):
                continue
            for animation_id, doc in animations(ROOT / row["path"]):
                yield [row["path"], animation_id] + facts(doc)


def main():
    header = ["path", "id", "version", "fr", "ip", "op", "w", "h", "layers", "assets"]
    text = "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows())
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            print("reference.tsv is stale: run scripts/lottie-reference.py", file=sys.stderr)
            sys.exit(1)
        return
    OUT.write_text(text)
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} rows)", file=sys.stderr)


main()
