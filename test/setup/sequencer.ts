import { BaseSequencer, type TestSpecification } from "vitest/node";
import { BOX_FILES, OTHER_SECONDS, relativePath } from "./box-files.js";

/** The projects whose files mostly wait (on a stack, Postgres, Chromium) first, those that compute last. */
const PROJECTS = ["e2e", "browser", "images", "workers", "unit"];

const boxRank = (spec: TestSpecification) => BOX_FILES.findIndex(([path]) => path === relativePath(spec.moduleId));

function seconds(spec: TestSpecification): number {
  const own = BOX_FILES.find(([path]) => path === relativePath(spec.moduleId));
  return own?.[1] ?? OTHER_SECONDS[relativePath(spec.moduleId)] ?? OTHER_SECONDS[spec.project.name] ?? 1;
}

/**
 * The files that run the container engine's boxes run one at a time (./turn.ts), so the
 * run lasts at least as long as they do one after another. vitest hands a file to each worker
 * that frees, in queue order, and the other files' times are only estimates: so the box
 * files keep one ahead (the next one waits for the turn in a worker of its own), and the turn
 * never waits for a worker to free. The other files fill the other workers, the slowest first
 * (whatever their project: a slow file last is a tail no other file can fill), and among
 * equals the ones that mostly wait before the ones that compute. Wrong estimates cost wall
 * time only, never a test.
 */
export class BoxFilesAlongside extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    const byGroup = new Map<number, TestSpecification[]>();
    for (const spec of sorted) {
      const group = spec.project.config.sequence.groupOrder;
      byGroup.set(group, [...(byGroup.get(group) ?? []), spec]);
    }
    const workers = Math.max(1, Number(this.ctx.config.maxWorkers) || 1);
    return [...byGroup.keys()]
      .sort((a, b) => a - b)
      .flatMap((group) => {
        const specs = byGroup.get(group)!;
        const own = specs.filter((spec) => boxRank(spec) >= 0).sort((a, b) => boxRank(a) - boxRank(b));
        const projectRank = (spec: TestSpecification) => (PROJECTS.indexOf(spec.project.name) + PROJECTS.length + 1) % (PROJECTS.length + 1);
        const others = specs
          .filter((spec) => boxRank(spec) < 0)
          .sort((a, b) => seconds(b) - seconds(a) || projectRank(a) - projectRank(b) || position.get(a)! - position.get(b)!);
        return interleave(own, others, workers);
      });
  }
}

/**
 * A rough simulation of vitest handing files to `workers` workers in queue order, a file to
 * each worker that frees. The box files keep one ahead: while one holds the turn the next
 * already waits for it in a worker, so the turn passes at once however long the other files
 * take; each further box file is queued about when the one before it should take the turn.
 * The other files share the workers the two box files leave.
 */
function interleave(own: TestSpecification[], others: TestSpecification[], workers: number): TestSpecification[] {
  const queue = own.slice(0, 2);
  const freeAt = Array.from({ length: Math.max(1, workers - 2) }, () => 0);
  // When each box file should take the turn: the one before it, ended.
  const turnAt = own.map((_, index) => own.slice(0, index).reduce((sum, spec) => sum + seconds(spec), 0));
  let o = queue.length;
  let r = 0;
  while (o < own.length || r < others.length) {
    const slot = freeAt.indexOf(Math.min(...freeAt));
    const now = freeAt[slot]!;
    if (o < own.length && (turnAt[o - 1]! <= now || r >= others.length)) {
      queue.push(own[o++]!);
    } else {
      freeAt[slot] = now + seconds(others[r]!);
      queue.push(others[r++]!);
    }
  }
  return queue;
}
