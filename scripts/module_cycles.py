#!/usr/bin/env python3
"""Import cycles between the modules of each crate (issue 12's floor-plan rule).

A module is a file, or a folder's mod.rs. Module A depends on module B when A names a path into B
(`use crate::b::...`, `crate::b::x(...)` in code, `super::...`, `self::...`): the path resolves
to the deepest module file it reaches. Declaring a child (`mod b;`) is not a dependency.

    scripts/module_cycles.py                # report every cycle, exit 1 if any
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
USE_GROUP_RE = re.compile(r"\buse\s+(crate|super|self)::((?:[A-Za-z_][A-Za-z0-9_]*::)*)\{([^;]*)\}\s*;", re.S)


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


def resolve(modules: set[tuple[str, ...]], base: tuple[str, ...], segs: list[str]) -> tuple[str, ...]:
    """The deepest module that `base` + `segs` reaches."""
    path = base
    for s in segs:
        if path + (s,) in modules:
            path = path + (s,)
        else:
            break
    return path


def crate_graph(src: Path) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    files = [f for f in src.rglob("*.rs")]
    modules = {module_of(src, f) for f in files}
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in modules}
    for f in files:
        me = module_of(src, f)
        text = strip_comments_and_strings(f.read_text())
        # `#[cfg(test)] mod tests { ... }` inside a file belongs to the file: tests may import
        # anything below them, which is fine, but they are not part of the floor plan.
        cut = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests\s*\{", text)
        if cut:
            text = text[: cut.start()]
        is_dir_module = f.name in ("mod.rs", "lib.rs", "main.rs")
        refs: list[tuple[str, list[str]]] = []
        for m in USE_GROUP_RE.finditer(text):
            root, prefix, inner = m.group(1), m.group(2), m.group(3)
            pre = [p for p in prefix.split("::") if p]
            for item in re.split(r",", re.sub(r"\{[^}]*\}", "", inner)):
                item = item.strip().split(" as ")[0].strip()
                segs = pre + [s for s in item.split("::") if s and s != "self"]
                refs.append((root, segs))
            for nested in re.finditer(r"([A-Za-z_][A-Za-z0-9_:]*)::\{", inner):
                refs.append((root, pre + [s for s in nested.group(1).split("::") if s]))
        for m in PATH_RE.finditer(text):
            if m.group(2) == "::{":
                continue
            refs.append((m.group(1), [s for s in m.group(2).split("::") if s]))
        for root, segs in refs:
            if root == "crate":
                base: tuple[str, ...] = ()
            elif root == "self":
                base = me if is_dir_module else me[:-1]
            else:  # super
                parent = me if is_dir_module else me[:-1]
                base = parent[:-1]
                while segs and segs[0] == "super":
                    segs = segs[1:]
                    base = base[:-1]
            target = resolve(modules, base, segs)
            if target != me and not (me[: len(target)] == target and len(target) < len(me) and root == "self"):
                graph[me].add(target)
    return graph


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
    args = p.parse_args()
    crates = args.crate or sorted(d.name for d in (REPO / "crates").iterdir() if (d / "src").is_dir())
    found = 0
    for c in crates:
        graph = crate_graph(REPO / "crates" / c / "src")
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
