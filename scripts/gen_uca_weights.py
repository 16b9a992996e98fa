#!/usr/bin/env python3
"""Generates the primary weight tables of MariaDB's UCA collations (crates/charset/src/uca/).

MariaDB's `*_unicode_ci` weighs characters by UCA 4.0.0's DUCET and `*_unicode_520_ci` by UCA
5.2.0's, primary level only. Debian ships only the current DUCET (package unicode-data:
/usr/share/unicode/allkeys.txt, 15.0), so the tables are rebuilt from it:

1. Every code point of Unicode <= the UCA version (DerivedAge.txt) that allkeys.txt lists gets
   its DUCET 15 primary weights (zero weights dropped: an ignorable weighs nothing).
2. DUCET 15 numbers primaries differently from 4.0/5.2 (new scripts were slotted in between),
   but the order of the old primaries is nearly the same. Each DUCET 15 primary is renumbered by
   its dense rank among the primaries that version's characters use, shifted by the anchors of
   the exceptions file (`anchor P W`: primary P and the ones after it count on from W), which
   reproduces the old numbers, gaps included.
3. A code point that the table does not list weighs an implicit weight, as MariaDB computes it:
   [base + (cp >> 15), (cp & 0x7FFF) | 0x8000], base FB40 for unified ideographs of the CJK
   block and its compatibility block, FB80 for other unified ideographs, FBC0 otherwise. UCA 4.0
   (utf8mb4_unicode_ci) weighs every supplementary character as U+FFFD.
4. The exceptions file's `cp W...` lines override single code points where UCA 4.0/5.2 and
   DUCET 15 disagree beyond renumbering (see the file's comments for the classes).

The exceptions files come from diffing against a MariaDB 10.11 (`--derive GROUND_TRUTH`, a file
of `cp<TAB>HEX(WEIGHT_STRING(CHAR(cp) COLLATE x))` lines), and are checked in with the
generated tables, so that a build needs neither this script nor unicode-data.

Output format (little endian), one file per UCA version:
  u16 page index for pages 0..0x1100 (256 code points each): a data page number, or
    PAGE_FFFD (every code point weighs FFFD), PAGE_IMPLICIT (every code point weighs its
    implicit weight);
  u32 number of data pages, then 256 u32 entries per data page:
    bit 31 set: implicit weight with base (entry & 0xFFFF);
    else count (bits 24..30) weights starting at u16 offset (bits 0..23) of the pool;
  u32 pool length, then the u16 pool.

Usage: gen_uca_weights.py [--derive 400=FILE] [--derive 520=FILE]
"""

import argparse
import collections
import os
import re
import struct
import sys

UNICODE = '/usr/share/unicode'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, 'crates', 'charset', 'src', 'uca')
VERSIONS = {'400': (4, 0), '520': (5, 2)}
PAGE_FFFD = 0xFFFF
PAGE_IMPLICIT = 0xFFFE
IMPLICIT_FLAG = 0x80000000
MAX_CP = 0x10FFFF
IMPLICIT_FIRST = 0xFB00
IMPLICIT_LAST = 0xFBFF
LITERAL = 1 << 16


def parse_ranges(path, want=None):
    """(first, last, value) of each `a..b ; value` line of a UCD file."""
    out = []
    for line in open(path, encoding='utf-8'):
        line = line.split('#')[0].strip()
        if not line:
            continue
        r, v = [x.strip() for x in line.split(';')[:2]]
        if want is not None and v != want:
            continue
        a, b = (r.split('..') + [r])[:2]
        out.append((int(a, 16), int(b, 16), v))
    return out


def ages():
    age = {}
    for a, b, v in parse_ranges(os.path.join(UNICODE, 'DerivedAge.txt')):
        ver = tuple(int(x) for x in v.split('.'))
        for cp in range(a, b + 1):
            age[cp] = ver
    return age


def ducet():
    """Code point -> nonzero primary weights, for the single-code-point entries of allkeys.txt."""
    keys = {}
    for line in open(os.path.join(UNICODE, 'allkeys.txt'), encoding='utf-8'):
        line = line.split('#')[0].strip()
        if not line or line.startswith('@'):
            continue
        cps, ws = line.split(';')
        cps = cps.split()
        if len(cps) != 1:
            continue
        prims = [int(m, 16) for m in re.findall(r'\[[.*]([0-9A-F]{4})\.', ws)]
        prims = [p for p in prims if p]
        # An implicit weight spelled out (compatibility ideographs: FB41 8C48 for U+F900) is
        # kept as it is, not renumbered: its two weights are marked LITERAL.
        out = []
        i = 0
        while i < len(prims):
            if IMPLICIT_FIRST <= prims[i] <= IMPLICIT_LAST and i + 1 < len(prims):
                out += [prims[i] | LITERAL, prims[i + 1] | LITERAL]
                i += 2
            else:
                out.append(prims[i])
                i += 1
        keys[int(cps[0], 16)] = out
    return keys


def unified_ideographs(age, ver):
    out = set()
    for a, b, _ in parse_ranges(os.path.join(UNICODE, 'PropList.txt'), 'Unified_Ideograph'):
        out.update(cp for cp in range(a, b + 1) if age.get(cp, (99,)) <= ver)
    return out


def implicit_base(cp, ideographs):
    # MariaDB gives the ideographs beyond the BMP (extension B on) the base of other characters.
    if cp in ideographs and cp <= 0xFFFF:
        return 0xFB40 if (0x4E00 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF) else 0xFB80
    return 0xFBC0


def implicit(cp, base):
    return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]


def code_points(ver):
    last = 0xFFFF if ver == (4, 0) else MAX_CP
    return [cp for cp in range(last + 1) if not 0xD800 <= cp <= 0xDFFF]


class Base:
    """DUCET 15 restricted to one UCA version, before renumbering."""

    def __init__(self, ver, age, keys):
        self.ver = ver
        cps = code_points(ver)
        self.keys = {cp: keys[cp] for cp in cps if cp in keys and age.get(cp, (99,)) <= ver}
        prims = sorted({p for ws in self.keys.values() for p in ws if not p & LITERAL})
        self.prims = prims
        self.rank = {p: i for i, p in enumerate(prims)}
        self.ideographs = unified_ideographs(age, ver)
        self.cps = cps

    def renumber(self, anchors):
        """DUCET 15 primary -> old primary, counting on from the last anchor at or before it."""
        out = {}
        it = sorted(anchors.items())
        ai = -1
        for p in self.prims:
            while ai + 1 < len(it) and it[ai + 1][0] <= p:
                ai += 1
            if ai < 0:
                out[p] = p
            else:
                ap, aw = it[ai]
                out[p] = aw + self.rank[p] - self.rank[ap]
        return out

    def weights(self, anchors, overrides):
        """Code point -> weights (a list) or ('implicit', base), for every code point."""
        m = self.renumber(anchors)
        m.update({p: p & 0xFFFF for ws in self.keys.values() for p in ws if p & LITERAL})
        out = {}
        for cp in self.cps:
            if cp in overrides:
                out[cp] = overrides[cp]
            elif self.ver == (4, 0) and cp > 0xFFFF:
                out[cp] = [0xFFFD]
            elif cp in self.keys:
                out[cp] = [m[p] for p in self.keys[cp]]
            else:
                out[cp] = ('implicit', implicit_base(cp, self.ideographs))
        return out


def expand(w, cp):
    return implicit(cp, w[1]) if isinstance(w, tuple) else w


def read_ground_truth(path):
    gt = {}
    for line in open(path, encoding='utf-8'):
        parts = line.rstrip('\n').split('\t')
        h = parts[1] if len(parts) > 1 else ''
        gt[int(parts[0])] = [int(h[i:i + 4], 16) for i in range(0, len(h), 4)]
    return gt


def derive(base, gt):
    """Anchors and overrides that make `base` give MariaDB's weights `gt`."""
    votes = collections.defaultdict(collections.Counter)
    for cp, ws in base.keys.items():
        if cp in gt and len(gt[cp]) == len(ws):
            for p, w in zip(ws, gt[cp]):
                if not p & LITERAL:
                    votes[p][w] += 1
    voted = [(p, votes[p].most_common(1)[0][0]) for p in base.prims if p in votes]
    anchors = {}
    offset = None  # old weight minus rank
    look = 1
    for i, (p, w) in enumerate(voted):
        want = w - base.rank[p]
        if want == offset:
            continue
        # A new offset only where the following primaries keep it (a lone primary that moved
        # is left to the overrides).
        after = voted[i + 1:i + 1 + look]
        if offset is None or all(w2 - base.rank[p2] == want for p2, w2 in after):
            anchors[p] = w
            offset = want
    got = base.weights(anchors, {})
    overrides = {}
    for cp in base.cps:
        if cp in gt and expand(got[cp], cp) != gt[cp]:
            overrides[cp] = gt[cp]
    return anchors, overrides


def classify(cp, ours, theirs, base):
    in_table = cp in base.keys
    if not theirs:
        return 'ignorable in MariaDB, weighed in DUCET 15'
    if in_table and not base.keys[cp]:
        return 'ignorable in DUCET 15, weighed in MariaDB'
    if theirs[0] >= 0xFB40 and theirs[0] <= 0xFBFF and len(theirs) == 2:
        return 'implicit in MariaDB (not in its table), listed in DUCET 15'
    if not in_table:
        return 'in MariaDB\'s table, implicit here (not in DUCET 15 or newer than the version)'
    if len(ours) != len(theirs):
        return 'expansion changed since the version (a different number of weights)'
    return 'reordered since the version (same number of weights, another place)'


EXC_HEADER = """# Exceptions for the UCA {v} primary weights (MariaDB's {coll}), applied by
# scripts/gen_uca_weights.py on top of DUCET 15 (allkeys.txt) restricted to Unicode <= {ver}.
# Derived by diffing against MariaDB 10.11's WEIGHT_STRING (--derive); regenerate, do not edit.
#
# `anchor P W`: DUCET 15 primary P (hex) and the primaries after it are renumbered from W
#   (the old tables number primaries densely, with gaps where characters of other planes or
#   later-removed weights sat; new scripts slotted in since then are not in the version).
# `U+cp W...`: the code point weighs W... (none: ignorable). Classes, as counted below:
#   reordered since the version: punctuation and symbols that UCA moved after 4.0/5.2
#   (e.g. the order of some dashes, quotes and currency signs);
#   ignorable in MariaDB / ignorable in DUCET 15: characters whose ignorability changed
#   (format controls, some combining marks and variation selectors);
#   expansion changed: compatibility characters whose decomposition weights changed;
#   implicit in MariaDB: characters its table did not list (weighed by code point);
#   in MariaDB's table, implicit here: characters DUCET 15 no longer lists explicitly.
"""


def write_exceptions(path, key, base, anchors, overrides, got):
    classes = collections.Counter()
    lines = []
    for cp in sorted(overrides):
        cls = classify(cp, expand(got[cp], cp), overrides[cp], base)
        classes[cls] += 1
        ws = ' '.join('%04X' % w for w in overrides[cp])
        lines.append('U+%04X %s  # %s' % (cp, ws, cls))
    with open(path, 'w', encoding='utf-8') as f:
        coll = 'utf8mb4_unicode_ci' if key == '400' else 'utf8mb4_unicode_520_ci'
        f.write(EXC_HEADER.format(v=key, coll=coll, ver='.'.join(map(str, VERSIONS[key]))))
        for cls, n in sorted(classes.items()):
            f.write('#   %5d %s\n' % (n, cls))
        for p, w in sorted(anchors.items()):
            f.write('anchor %04X %04X\n' % (p, w))
        for line in lines:
            f.write(line + '\n')


def read_exceptions(path):
    anchors, overrides = {}, {}
    for line in open(path, encoding='utf-8'):
        line = line.split('#')[0].split()
        if not line:
            continue
        if line[0] == 'anchor':
            anchors[int(line[1], 16)] = int(line[2], 16)
        else:
            overrides[int(line[0][2:], 16)] = [int(w, 16) for w in line[1:]]
    return anchors, overrides


def encode(weights, supplementary_fffd):
    pages = []
    index = []
    pool = []
    pool_at = {}
    for page in range(0x1100):
        cps = range(page << 8, (page + 1) << 8)
        ws = [weights.get(cp) for cp in cps]
        if supplementary_fffd and page >= 0x100:
            index.append(PAGE_FFFD)
            continue
        if all(w is None or (isinstance(w, tuple) and w[1] == 0xFBC0) for w in ws):
            index.append(PAGE_IMPLICIT)
            continue
        entries = []
        for cp, w in zip(cps, ws):
            if w is None:  # a surrogate: never decoded from UTF-8
                w = ('implicit', 0xFBC0)
            if isinstance(w, tuple):
                entries.append(IMPLICIT_FLAG | w[1])
                continue
            key = tuple(w)
            if key not in pool_at:
                pool_at[key] = len(pool)
                pool.extend(w)
            assert len(w) < 128 and pool_at[key] < (1 << 24)
            entries.append((len(w) << 24) | pool_at[key])
        index.append(len(pages))
        pages.append(entries)
    out = bytearray()
    for p in index:
        out += struct.pack('<H', p)
    out += struct.pack('<I', len(pages))
    for entries in pages:
        out += struct.pack('<256I', *entries)
    out += struct.pack('<I', len(pool))
    out += struct.pack('<%dH' % len(pool), *pool)
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--derive', action='append', default=[], help='VERSION=GROUND_TRUTH_FILE (400 or 520)')
    args = ap.parse_args()
    derive_from = dict(d.split('=', 1) for d in args.derive)
    age = ages()
    keys = ducet()
    os.makedirs(OUT_DIR, exist_ok=True)
    for key, ver in VERSIONS.items():
        base = Base(ver, age, keys)
        exc_path = os.path.join(OUT_DIR, 'exceptions_%s.txt' % key)
        if key in derive_from:
            gt = read_ground_truth(derive_from[key])
            anchors, overrides = derive(base, gt)
            write_exceptions(exc_path, key, base, anchors, overrides, base.weights(anchors, {}))
        anchors, overrides = read_exceptions(exc_path)
        weights = base.weights(anchors, overrides)
        data = encode(weights, ver == (4, 0))
        with open(os.path.join(OUT_DIR, 'weights_%s.bin' % key), 'wb') as f:
            f.write(data)
        print('UCA %s: %d anchors, %d overrides, %d bytes' % (key, len(anchors), len(overrides), len(data)),
              file=sys.stderr)


if __name__ == '__main__':
    main()
