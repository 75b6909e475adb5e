#!/usr/bin/env python3
"""Rebuilds nib's bundled fonts and the tables that describe them.

Run from the repository root with Node's npm, Debian's apt-get and a Python 3 that has fontTools
and brotli (`python3 -m venv /tmp/v && /tmp/v/bin/pip install fonttools==4.68.0 brotli`):

    /tmp/v/bin/python assets/fonts/refresh.py

It downloads (into a temporary folder, removed at the end):
- the npm packages in PACKAGES (Fontsource: the files Google Fonts serves, cut by Google into
  unicode-range subsets; `@fontsource-variable/*` where the family is variable),
- npm inter-ui (Inter 4.001 whole, as rsms/inter's release 4.1 ships it: see INTER_UPSTREAM),
- Debian's fonts-liberation2 (the metric-compatible twins of Arial, Times New Roman, Courier New),
- npm google-font-metadata (the Google Fonts catalogue: family, category, weights, styles).

and writes:
- assets/fonts/<id>/*.woff2 and assets/fonts/<id>/LICENSE: the WOFF2 files as published, except
  the CJK families (Japanese, Simplified Chinese, Korean), whose slices keep only the characters
  in everyday use and those the corpus uses (see CJK), and Liberation, made WOFF2 without hinting,
- assets/fonts/google-fonts.tsv: family, category, weights and styles of every catalogue family,
- crates/nib-fonts/src/table.rs: the table of every bundled file (family, style, weights, the
  unicode-range it is declared for) that nib embeds.

With the same package versions and fontTools version the output is the same byte for byte.
"""

import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path.cwd()
FONTS = ROOT / "assets" / "fonts"
TABLE = ROOT / "crates" / "nib-fonts" / "src" / "table.rs"

# Fontsource package id → (kind, version). "variable" takes the files with the weight axis only
# (`-wght-`), other axes at their defaults, as Google serves a family asked for by weight.
PACKAGES = {
    "caveat": ("variable", "5.3.0"),
    "dm-mono": ("static", "5.3.0"),
    "dm-sans": ("variable", "5.3.0"),
    "figtree": ("variable", "5.3.0"),
    "fira-code": ("variable", "5.3.0"),
    "fraunces": ("variable", "5.3.0"),
    "funnel-display": ("variable", "5.3.0"),
    "geist": ("variable", "5.3.0"),
    "geist-mono": ("variable", "5.3.0"),
    "ibm-plex-mono": ("static", "5.3.0"),
    "ibm-plex-sans": ("variable", "5.3.0"),
    "inconsolata": ("variable", "5.3.0"),
    # Inter 4 as Google serves it (Fontsource 5.3.0 = Google Fonts' v20, "Version 4.001"), which
    # is the Inter Pen draws: its `-wght-` files have the optical size fixed at its default, 14.
    "inter": ("variable", "5.3.0"),
    "instrument-sans": ("variable", "5.3.0"),
    "instrument-serif": ("static", "5.3.0"),
    "lato": ("static", "5.3.0"),
    "lexend": ("variable", "5.3.0"),
    "lora": ("variable", "5.3.0"),
    "manrope": ("variable", "5.3.0"),
    "merriweather": ("variable", "5.3.0"),
    "montserrat": ("variable", "5.3.0"),
    "newsreader": ("variable", "5.3.0"),
    "noto-emoji": ("variable", "5.3.1"),
    "noto-sans-jp": ("variable", "5.3.1"),
    "noto-sans-kr": ("variable", "5.3.1"),
    "noto-sans-math": ("static", "5.3.0"),
    "noto-sans-sc": ("variable", "5.3.1"),
    "noto-sans-symbols-2": ("static", "5.3.0"),
    "noto-sans-thai": ("variable", "5.3.0"),
    "noto-serif-jp": ("variable", "5.3.1"),
    "nunito": ("variable", "5.3.0"),
    "open-sans": ("variable", "5.3.0"),
    "outfit": ("variable", "5.3.0"),
    "playfair-display": ("variable", "5.3.0"),
    "plus-jakarta-sans": ("variable", "5.3.0"),
    "poppins": ("static", "5.3.0"),
    "press-start-2p": ("static", "5.3.0"),
    "raleway": ("variable", "5.3.0"),
    "roboto": ("variable", "5.3.0"),
    "roboto-mono": ("variable", "5.3.0"),
    "rubik": ("variable", "5.3.0"),
    "sora": ("variable", "5.3.0"),
    "source-code-pro": ("variable", "5.3.1"),
    "source-sans-3": ("variable", "5.3.1"),
    "space-grotesk": ("variable", "5.3.0"),
    "space-mono": ("static", "5.3.0"),
    "spectral": ("static", "5.3.0"),
    "syne": ("variable", "5.3.0"),
    "urbanist": ("variable", "5.3.0"),
    "work-sans": ("variable", "5.3.0"),
}
# Inter 4.001 whole, as rsms/inter's release 4.1 ships it: npm inter-ui copies the release's
# `web/InterVariable*.woff2` unchanged into `variable/`. Google's subsets above leave out what
# interfaces write with it (→ ← ⇧ ⌘ ✓ ▶, box drawing, more arrows and symbols), which Pen's Inter
# has; these files are declared for those characters only, after the subsets, so every character
# the subsets have is still drawn with Google's build (the same advances at the default optical
# size, 14, which nib keeps: it sets only the weight).
INTER_UPSTREAM = ("inter-ui@4.1.1", "inter-4.001", ["InterVariable.woff2", "InterVariable-Italic.woff2"])
METADATA = "google-font-metadata@6.0.8"
LIBERATION = "fonts-liberation2"

# CJK families are cut (the full ones are 5 to 10 MB each) to the characters in everyday use,
# the CJK punctuation blocks, full-width forms and every character of the test corpus; the full
# families are `nib fonts fetch` away. Japanese: JIS X 0208's non-kanji rows and level-1 kanji
# (the 2,965 most used) and the kana; Simplified Chinese: GB 2312's symbol rows and level-1
# hanzi (the 3,755 most used); Korean: KS X 1001's symbol rows and its 2,350 Hangul syllables.
CJK = {"noto-sans-jp": "japanese", "noto-serif-jp": "japanese", "noto-sans-sc": "chinese", "noto-sans-kr": "korean"}

# Files nib already shipped from Debian before this table existed (sources in assets/README.md):
# listed in the table as they are.
DEBIAN = [
    ("JetBrains Mono", "jetbrains-mono/JetBrainsMono-{}.ttf", ["Thin", "ExtraLight", "Light", "Regular", "Medium", "SemiBold", "Bold", "ExtraBold"]),
]
EXTRA = [
    "noto/NotoSans-Regular.ttf",
    "noto/NotoSans-Italic.ttf",
    "noto/NotoSans-Bold.ttf",
    "noto/NotoSans-BoldItalic.ttf",
    "../icons/material-symbols/MaterialSymbolsOutlined.ttf",
    "../icons/material-symbols/MaterialSymbolsRounded.ttf",
    "../icons/material-symbols/MaterialSymbolsSharp.ttf",
]


def run(*cmd, cwd):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def npm_unpack(spec, tmp):
    out = subprocess.run(["npm", "pack", spec], cwd=tmp, check=True, capture_output=True, text=True)
    tgz = tmp / out.stdout.strip().splitlines()[-1]
    dest = tmp / tgz.stem
    with tarfile.open(tgz) as tar:
        tar.extractall(dest, filter="data")
    return dest / "package"


def parse_ranges(text):
    ranges = []
    for part in text.split(","):
        part = part.strip().upper().replace("U+", "")
        if not part:
            continue
        lo, _, hi = part.partition("-")
        ranges.append((int(lo, 16), int(hi or lo, 16)))
    return sorted(ranges)


def euc_rows(codec, rows):
    """The characters of rows `rows` of a 94 × 94 national set, read through its EUC codec."""
    chars = set()
    for row in rows:
        for cell in range(0xA1, 0xFF):
            try:
                chars.add(bytes([row + 0xA0, cell]).decode(codec))
            except UnicodeDecodeError:
                pass
    return {ord(c) for c in chars}


def corpus_characters():
    chars = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "content" and isinstance(value, str):
                    chars.update(ord(c) for c in value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for path in sorted(glob.glob(str(ROOT / "tests" / "fixtures" / "pen" / "*.pen"))):
        try:
            walk(json.loads(Path(path).read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError):
            pass
    return chars


def cjk_keep():
    """Script name → the characters its CJK families keep."""
    common = corpus_characters()
    for lo, hi in [(0x3000, 0x303F), (0xFF00, 0xFFEF)]:
        common.update(range(lo, hi + 1))
    kana = set(range(0x3040, 0x3100)) | set(range(0x31F0, 0x3200))
    return {
        # JIS X 0208: rows 1-15 symbols and kana, 16-47 level-1 kanji.
        "japanese": common | kana | euc_rows("euc_jp", range(1, 48)),
        # GB 2312: rows 1-15 symbols, 16-55 level-1 hanzi.
        "chinese": common | euc_rows("gb2312", range(1, 56)),
        # KS X 1001: rows 1-15 symbols, 16-40 Hangul syllables.
        "korean": common | euc_rows("euc_kr", range(1, 41)),
    }


def save_subset(source, target, unicodes):
    """`source` keeping only `unicodes` (with their layout), as WOFF2; False when none is left."""
    font = TTFont(source, recalcTimestamp=False)
    wanted = sorted(set(font.getBestCmap()) & unicodes)
    if not wanted:
        return False
    options = subset.Options(layout_features=["*"], name_IDs=["*"], name_languages=["*"], notdef_outline=True,
                             glyph_names=False, passthrough_tables=True)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    font.flavor = "woff2"
    font.save(target)
    return True


def weight_range(path, css_weight):
    font = TTFont(path, lazy=True)
    if "fvar" in font:
        for axis in font["fvar"].axes:
            if axis.axisTag == "wght":
                return int(axis.minValue), int(axis.maxValue)
    weight = css_weight or font["OS/2"].usWeightClass
    return weight, weight


# `<subset>-<wght or weight>-<style>.woff2` after the package id.
FILE_RE = re.compile(r"^(?P<subset>.+)-(?P<weight>wght|\d+)-(?P<style>normal|italic)\.woff2$")


def fontsource(tmp, keep_cjk):
    rows = []
    for package_id, (kind, version) in sorted(PACKAGES.items()):
        scope = "@fontsource-variable" if kind == "variable" else "@fontsource"
        package = npm_unpack(f"{scope}/{package_id}@{version}", tmp)
        meta = json.loads((package / "metadata.json").read_text())
        unicode = json.loads((package / "unicode.json").read_text())
        family = meta["family"]
        out = FONTS / package_id
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        shutil.copy(package / "LICENSE", out / "LICENSE")
        # Latin first, as Google's CSS declares it last (the last declared face wins a character).
        order = {"latin": 0, "latin-ext": 1}
        for key in sorted(unicode, key=lambda k: (order.get(k, 2), int(k.strip("[]")) if k.startswith("[") else 0, k)):
            name = key.strip("[]")
            for style in ("normal", "italic"):
                sources = []
                for source in (package / "files").glob(f"{package_id}-*.woff2"):
                    match = FILE_RE.match(source.name[len(package_id) + 1 :])
                    if match and match["subset"] == name and match["style"] == style:
                        if (match["weight"] == "wght") == (kind == "variable"):
                            sources.append((0 if match["weight"] == "wght" else int(match["weight"]), source, match))
                for _, source, match in sorted(sources, key=lambda s: s[0]):
                    css_weight = None if match["weight"] == "wght" else int(match["weight"])
                    target = out / source.name
                    if package_id in CJK:
                        if not save_subset(source, target, keep_cjk[CJK[package_id]]):
                            continue
                    else:
                        shutil.copy(source, target)
                    lo, hi = weight_range(target, css_weight)
                    # A family published as one file (Noto Sans Math) has all its characters in
                    # it, whatever subset name it was filed under.
                    ranges = parse_ranges(unicode[key]) if len(unicode) > 1 else []
                    rows.append((family, f"{package_id}/{source.name}", style == "italic", lo, hi, ranges))
        print(f"{family}: {sum(1 for r in rows if r[0] == family)} files", file=sys.stderr)
    return rows


def as_ranges(chars):
    """Sorted characters as inclusive (first, last) runs."""
    ranges = []
    for ch in sorted(chars):
        if ranges and ranges[-1][1] == ch - 1:
            ranges[-1] = (ranges[-1][0], ch)
        else:
            ranges.append((ch, ch))
    return ranges


def inter_upstream(tmp, rows):
    """Inter 4.001's whole files, declared for the characters Google's subsets (`rows`) lack."""
    spec, folder, names = INTER_UPSTREAM
    package = npm_unpack(spec, tmp)
    out = FONTS / folder
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(package / "LICENSE.txt", out / "LICENSE")
    added = []
    for name in names:
        italic = "Italic" in name
        shutil.copy(package / "variable" / name, out / name)
        google = set()
        for family, path, row_italic, *_ in rows:
            if family == "Inter" and row_italic == italic:
                google.update(TTFont(FONTS / path, lazy=True).getBestCmap())
        own = set(TTFont(out / name, lazy=True).getBestCmap()) - google
        lo, hi = weight_range(out / name, None)
        added.append(("Inter", f"{folder}/{name}", italic, lo, hi, as_ranges(own)))
    print(f"Inter 4.001: {len(names)} files", file=sys.stderr)
    return added


def liberation(tmp):
    run("apt-get", "download", LIBERATION, cwd=tmp)
    deb = next(tmp.glob(f"{LIBERATION}_*.deb"))
    run("dpkg-deb", "-x", deb.name, "liberation", cwd=tmp)
    source = tmp / "liberation" / "usr" / "share" / "fonts" / "truetype" / "liberation2"
    out = FONTS / "liberation"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(tmp / "liberation" / "usr" / "share" / "doc" / LIBERATION / "copyright", out / "LICENSE")
    rows = []
    for family in ("Sans", "Serif", "Mono"):
        for style, weight, italic in (("Regular", 400, False), ("Italic", 400, True), ("Bold", 700, False), ("BoldItalic", 700, True)):
            name = f"Liberation{family}-{style}"
            font = TTFont(source / f"{name}.ttf", recalcTimestamp=False)
            # nib draws unhinted outlines: the hinting is dead weight (advances are unchanged).
            options = subset.Options(hinting=False, layout_features=["*"], name_IDs=["*"], name_languages=["*"],
                                     notdef_outline=True, glyph_names=False, passthrough_tables=True)
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=font.getBestCmap())
            subsetter.subset(font)
            font.flavor = "woff2"
            font.save(out / f"{name}.woff2")
            rows.append((f"Liberation {family}", f"liberation/{name}.woff2", italic, weight, weight, []))
    return rows


def debian_rows():
    rows = []
    for family, pattern, styles in DEBIAN:
        for style in styles:
            for italic in (False, True):
                name = style if not italic else ("Italic" if style == "Regular" else f"{style}Italic")
                path = pattern.format(name)
                font = TTFont(FONTS / path, lazy=True)
                weight = font["OS/2"].usWeightClass
                rows.append((family, path, italic, weight, weight, []))
    for path in EXTRA:
        font = TTFont(FONTS / path, lazy=True)
        family = font["name"].getBestFamilyName()
        italic = bool(font["OS/2"].fsSelection & 1)
        lo, hi = weight_range(FONTS / path, None)
        rows.append((family, path, italic, lo, hi, []))
    return rows


def catalogue(tmp):
    package = npm_unpack(METADATA, tmp)
    data = json.loads((package / "data" / "google-fonts-v2.json").read_text())
    lines = ["# family\tcategory\tweights\tstyles (npm " + METADATA + ", data/google-fonts-v2.json)"]
    for entry in sorted(data.values(), key=lambda e: e["family"]):
        weights = ",".join(str(w) for w in sorted(entry["weights"]))
        styles = ",".join(sorted(entry["styles"], key=lambda s: s != "normal"))
        lines.append(f"{entry['family']}\t{entry['category']}\t{weights}\t{styles}")
    (FONTS / "google-fonts.tsv").write_text("\n".join(lines) + "\n")
    shutil.copy(package / "LICENSE", FONTS / "google-fonts.LICENSE")


def rust_table(rows):
    """The Rust table of `rows` (sorted by family): the families, then the files. Names, paths and
    unicode ranges are kept together (one string, one array) and rows point into them by offset,
    so that reading the table touches a few pages; as fields of each row, the compiler placed every
    name and range list beside its font's bytes, a page apart from the next."""
    text, ranges, families, files = "", [], [], []

    def span_of(value):
        nonlocal text
        span = (len(text), len(text) + len(value))
        text += value
        return span

    for family, path, italic, lo, hi, spans in rows:
        if not families or families[-1][0] != family:
            families.append([family, span_of(family), len(files), len(files)])
        families[-1][3] = len(files) + 1
        at = (len(ranges), len(ranges) + len(spans))
        ranges.extend(spans)
        # WOFF2 files are decoded by crates/nib-fonts/build.rs; the others are embedded as they are.
        data = f'face!("{path}")' if path.endswith(".woff2") else f'include_bytes!("../../../assets/fonts/{path}")'
        files.append(
            f"    BundledFile {{ family: {len(families) - 1}, path: {span_of(path)}, data: {data}, "
            f"italic: {'true' if italic else 'false'}, weights: ({lo}, {hi}), ranges: {at} }},"
        )
    assert len({f[0] for f in families}) == len(families), "each family's files listed together"
    assert text.isascii(), "names and paths are ASCII: the table slices them by byte"
    out = [
        "// Generated by assets/fonts/refresh.py from the files in assets/fonts: do not edit by hand.",
        "",
        "use crate::{BundledFamily, BundledFile};",
        "",
        "/// Every family's name and every file's path, one after another (see `BundledFile`).",
        "pub(crate) static TEXT: &str = concat!(",
    ]
    out += [f'    "{text[i:i + 96]}",' for i in range(0, len(text), 96)]
    out += [
        ");",
        "",
        "/// Every file's unicode ranges, one list after another.",
        "pub(crate) static RANGES: &[(u32, u32)] = &[",
    ]
    out += [f"    (0x{a:X}, 0x{b:X})," for a, b in ranges]
    out += [
        "];",
        "",
        "/// Every bundled family, in the order of the files.",
        "pub static FAMILIES: &[BundledFamily] = &[",
    ]
    out += [f"    BundledFamily {{ name: {name}, files: ({first}, {end}) }}," for _, name, first, end in families]
    out += [
        "];",
        "",
        "/// Every font file nib embeds, grouped by family; within a family in the order faces are tried",
        "/// for a character (as Google's CSS declares them). A static, not a const: a const's bytes",
        "/// would be copied into every function that reads the table.",
        "pub static FILES: &[BundledFile] = &[",
    ]
    out += files
    out.append("];")
    TABLE.write_text("\n".join(out) + "\n")


def main():
    keep_cjk = cjk_keep()
    with tempfile.TemporaryDirectory(prefix="nib-fonts-") as tmp:
        tmp = Path(tmp)
        google = fontsource(tmp, keep_cjk)
        rows = debian_rows() + google + inter_upstream(tmp, google) + liberation(tmp)
        catalogue(tmp)
    rows.sort(key=lambda r: r[0])  # stable: keeps each family's own order
    rust_table(rows)
    total = sum((FONTS / r[1]).stat().st_size for r in rows)
    print(f"{len(rows)} files, {total / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
