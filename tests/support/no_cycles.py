"""No import cycle between modules: `make lint` runs this (`python -m tests.support.no_cycles`).

import-linter's contracts are about packages (layers, independence); a cycle between two modules
of one package (`gateway.net.netguard` <-> `gateway.net.netguard_httpx`, `gateway.process.supervisor` <->
`gateway.process.workers`, both found by #25) passes them. This builds the module import graph of the
product's packages with grimp (import-linter's engine), counting imports inside functions too
(they are imports all the same) but not those under `if TYPE_CHECKING:` (never executed), and
reports every strongly connected component of more than one module.
"""

from __future__ import annotations

import sys

import grimp

PACKAGES = ("gateway", "extproc", "storage", "vectorstore")


def cycles(packages: tuple[str, ...] = PACKAGES) -> list[list[str]]:
    """The module groups that import each other in a circle (Tarjan's algorithm, iterative)."""
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return sorted(found)


def main() -> int:
    found = cycles()
    for group in found:
        print("import cycle: " + " <-> ".join(group), file=sys.stderr)
    if not found:
        print("no import cycles between modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
