/**
 * Cycles between folders, from dependency-cruiser's module list. A folder here is a leaf
 * folder: the directory a file sits in (core/validation and core are two folders). One
 * folder importing another is an edge; a cycle is a strongly connected group of folders,
 * reported as the shortest loop through each of its folders, each hop with one import that
 * makes it.
 */
import { dirname } from "node:path";

/** The part of dependency-cruiser's cruise result this reads. */
export interface CruisedModule {
  source: string;
  coreModule?: boolean;
  couldNotResolve?: boolean;
  dependencies: { resolved: string; coreModule?: boolean; couldNotResolve?: boolean }[];
}

/** One hop of a cycle: folder `from` imports folder `to`, for instance through `example`. */
export interface Hop {
  from: string;
  to: string;
  example: { from: string; to: string };
}

/**
 * Files left out of the folder graph. Tests sit beside the code they test and often need
 * shared helpers from elsewhere (test/workerd/, a seed or a fake of another room); a
 * test importing its helpers while the helpers import the code under test would read as a
 * cycle between folders that the code itself does not have. They still count for file cycles.
 */
export function outsideFolderGraph(path: string): boolean {
  return /\.test\.tsx?$/.test(path) || path.startsWith("test/");
}

/** Folder -> folder -> one file import making that edge. */
export function folderEdges(modules: CruisedModule[]): Map<string, Map<string, { from: string; to: string }>> {
  const local = new Set(modules.filter((m) => !m.coreModule && !m.couldNotResolve && !m.source.includes("node_modules/")).map((m) => m.source));
  const edges = new Map<string, Map<string, { from: string; to: string }>>();
  for (const module of modules) {
    if (!local.has(module.source) || outsideFolderGraph(module.source)) continue;
    const from = dirname(module.source);
    for (const dependency of module.dependencies) {
      if (!local.has(dependency.resolved) || outsideFolderGraph(dependency.resolved)) continue;
      const to = dirname(dependency.resolved);
      if (to === from) continue;
      const targets = edges.get(from) ?? new Map<string, { from: string; to: string }>();
      edges.set(from, targets);
      if (!targets.has(to)) targets.set(to, { from: module.source, to: dependency.resolved });
    }
  }
  return edges;
}

/** Strongly connected groups of more than one folder (Tarjan's algorithm). */
function cyclicGroups(edges: Map<string, Map<string, unknown>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest loop from `start` back to it, staying inside `group` (breadth first). */
function shortestLoop(start: string, group: Set<string>, edges: Map<string, Map<string, unknown>>): string[] {
  const cameFrom = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const target of [...(edges.get(node)?.keys() ?? [])].sort()) {
        if (!group.has(target)) continue;
        if (target === start) {
          const path = [node];
          while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
          return [...path, start];
        }
        if (cameFrom.has(target)) continue;
        cameFrom.set(target, node);
        next.push(target);
      }
    }
    frontier = next;
  }
  return [];
}

/** Every folder cycle, as hops; one loop per folder in a cyclic group, each loop reported once. */
export function folderCycles(modules: CruisedModule[]): Hop[][] {
  const edges = folderEdges(modules);
  const cycles: Hop[][] = [];
  const seen = new Set<string>();
  for (const group of cyclicGroups(edges)) {
    const members = new Set(group);
    for (const start of group) {
      const loop = shortestLoop(start, members, edges);
      // The same loop found from another of its folders: compare it from its smallest folder.
      const body = loop.slice(0, -1);
      const first = body.indexOf([...body].sort()[0]!);
      const key = [...body.slice(first), ...body.slice(0, first)].join(" -> ");
      if (seen.has(key)) continue;
      seen.add(key);
      cycles.push(body.map((from, i) => ({ from, to: loop[i + 1]!, example: edges.get(from)!.get(loop[i + 1]!)! })));
    }
  }
  return cycles;
}
