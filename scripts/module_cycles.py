#!/usr/bin/env python3
"""Import cycles between the modules of each crate (issue 12's floor-plan rule).

A module is a file, or a folder's mod.rs. Module A depends on module B when A names a path into B
(`use crate::b::...`, `crate::b::x(...)` in code, `super::...`, `self::...`): the path resolves
to the deepest module file it reaches. Declaring a child (`mod b;`) is not a dependency.

    scripts/module_cycles.py                # report every cycle, exit 1 if any (scripts/test.sh gate)
    scripts/module_cycles.py --crate sql    # one crate
    scripts/module_cycles.py --summary      # one line per crate

Written by hand (not cargo-modules) because nothing can be installed from the network in CI
beyond Debian packages and crates, and reading `crate::`/`super::` paths is all the rule needs.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{)")


def strip_comments_and_strings(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def module_of(src: Path, f: Path) -> tuple[str, ...]:
    rel = f.relative_to(src).with_suffix("")
    parts = rel.parts
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


ITEM_RE = r"(?:fn|struct|enum|union|trait|type|const|static|mod|macro_rules!)\s+{}\b"


class Crate:
    """The modules of one crate, what each imports, and where a path into them lands."""

    def __init__(self, src: Path):
        self.files = {module_of(src, f): f for f in src.rglob("*.rs")}
        # Test modules (`#[cfg(test)] mod x;`) and everything under them may import anything
        # below them; like inline `mod tests {}` blocks they are not part of the floor plan.
        tests = set()
        for m, f in self.files.items():
            for t in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_0-9]+)\s*;", f.read_text()):
                tests.add(m + (t.group(1),))
        self.files = {m: f for m, f in self.files.items() if not any(m[: len(t)] == t for t in tests)}
        self.modules = set(self.files)
        self.text: dict[tuple[str, ...], str] = {}
        for m, f in self.files.items():
            text = strip_comments_and_strings(f.read_text())
            # `#[cfg(test)] mod tests { ... }` inside a file belongs to the file: tests may import
            # anything below them, which is fine, but they are not part of the floor plan.
            cut = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests\s*\{", text)
            self.text[m] = text[: cut.start()] if cut else text
        # Names each module brings into scope with `use` (pub or not: a private import is visible
        # to the module's descendants, so `super::Name` may resolve through it), and its globs.
        self.imports: dict[tuple[str, ...], dict[str, tuple[str, tuple[str, ...], list[str]]]] = {}
        self.globs: dict[tuple[str, ...], list[tuple[str, tuple[str, ...], list[str]]]] = {}
        for m in self.modules:
            named: dict[str, tuple[str, tuple[str, ...], list[str]]] = {}
            globs: list[tuple[str, tuple[str, ...], list[str]]] = []
            for root, segs, alias in self.use_items(m):
                if segs and segs[-1] == "*":
                    globs.append((root, m, segs[:-1]))
                elif segs:
                    named[alias or segs[-1]] = (root, m, segs)
            self.imports[m] = named
            self.globs[m] = globs

    def children(self, m: tuple[str, ...]) -> set[str]:
        return {x[-1] for x in self.modules if len(x) == len(m) + 1 and x[: len(m)] == m}

    def use_items(self, m: tuple[str, ...]):
        """(root, segments, alias) for every leaf of every `use` in module `m`. Root is crate,
        super, self, or "" for a path that starts with a child module's name (2018 paths)."""
        kids = self.children(m)
        for u in re.finditer(r"\buse\s+([^;]*);", self.text[m]):
            tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", u.group(1)))
            for path, alias in expand_use(tree):
                segs = [x for x in path.split("::") if x]
                if not segs:
                    continue
                if segs[0] in ("crate", "super", "self"):
                    root, rest = segs[0], segs[1:]
                    yield root, rest, alias
                elif segs[0] in kids:
                    yield "self", segs, alias

    def base(self, me: tuple[str, ...], root: str, segs: list[str]) -> tuple[tuple[str, ...], list[str]]:
        if root == "crate":
            return (), segs
        if root == "self":
            return me, segs
        base = me[:-1]  # super
        while segs and segs[0] == "super":
            segs = segs[1:]
            base = base[:-1]
        return base, segs

    def defines(self, m: tuple[str, ...], item: str) -> bool:
        return re.search(ITEM_RE.format(re.escape(item)), self.text[m]) is not None

    def resolve(self, me: tuple[str, ...], root: str, segs: list[str], depth: int = 0) -> tuple[str, ...]:
        """The module where the path lands: the deepest module it names, followed through the
        `use` items of that module when the next name is imported there rather than defined."""
        path, segs = self.base(me, root, list(segs))
        while segs and path + (segs[0],) in self.modules:
            path = path + (segs[0],)
            segs = segs[1:]
        if not segs or depth > 8 or self.defines(path, segs[0]):
            return path
        imported = self.imports[path].get(segs[0])
        if imported is not None:
            r, at, isegs = imported
            return self.resolve(at, r, isegs + segs[1:], depth + 1)
        for r, at, gsegs in self.globs[path]:
            target = self.resolve(at, r, gsegs, depth + 1)
            if self.defines(target, segs[0]) or segs[0] in self.imports.get(target, {}):
                return self.resolve(target, "self", segs, depth + 1)
        return path

    def graph(self) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
        graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in self.modules}
        for me in self.modules:
            refs: list[tuple[str, list[str]]] = [(r, s) for r, s, _ in self.use_items(me)]
            kids = self.children(me)
            code = re.sub(r"\buse\s+[^;]*;", "", self.text[me])
            for m in PATH_RE.finditer(code):
                if m.group(2) == "::{":
                    continue
                refs.append((m.group(1), [x for x in m.group(2).split("::") if x]))
            # `child::item` in code, without `self::`.
            for m in re.finditer(r"(?<![A-Za-z0-9_:])([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)+)", code):
                if m.group(1) in kids:
                    refs.append(("self", [m.group(1)] + [x for x in m.group(2).split("::") if x]))
            for root, segs in refs:
                segs = [x for x in segs if x != "*"]
                target = self.resolve(me, root, segs)
                if target != me:
                    graph[me].add(target)
        return graph


def expand_use(tree: str) -> list[tuple[str, str | None]]:
    """`a::{b, c::{d as e}}` -> [("a::b", None), ("a::c::d", "e")]; `self` inside braces is the prefix."""
    out: list[tuple[str, str | None]] = []
    depth, brace = 0, -1
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                brace = i
            depth += 1
        elif ch == "}":
            depth -= 1
    if brace < 0:
        path, _, alias = tree.partition("@")
        return [(path, alias or None)]
    prefix = tree[:brace]
    inner = tree[brace + 1 : tree.rindex("}")]
    items, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    items.append(cur)
    for item in items:
        if not item:
            continue
        if item == "self":
            out.append((prefix.rstrip(":"), None))
            continue
        out.extend(expand_use(prefix + item))
    return out


def cycles(graph: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[list[tuple[str, ...]]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def name(m: tuple[str, ...]) -> str:
    return "::".join(m) if m else "(crate root)"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--crate", action="append", help="crate folder name under crates/ (default: all)")
    p.add_argument("--summary", action="store_true")
    p.add_argument("--repo", type=Path, default=REPO, help="repository root (default: this one)")
    args = p.parse_args()
    repo = args.repo
    crates = args.crate or sorted(d.name for d in (repo / "crates").iterdir() if (d / "src").is_dir())
    found = 0
    for c in crates:
        graph = Crate(repo / "crates" / c / "src").graph()
        comps = cycles(graph)
        found += len(comps)
        in_cycles = sum(len(x) for x in comps)
        print(f"{c}: {len(graph)} modules, {len(comps)} cycles, {in_cycles} modules in cycles")
        if args.summary:
            continue
        for comp in comps:
            members = set(comp)
            print(f"  cycle of {len(comp)}:")
            for m in comp:
                deps = sorted(name(d) for d in graph[m] if d in members)
                print(f"    {name(m)} -> {', '.join(deps)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
