// The team's task list on disk, where the reference and claude-code-controller keep it:
// `<config>/tasks/<team>/<id>.json`, one task per file ({id, subject, description, activeForm?,
// owner?, status, blocks, blockedBy, metadata?}), ids counting up (`.highwatermark` keeps the
// highest ever given, so a deleted task's id is not reused). Changes are made under one lock for
// the list (`.lock`, the inbox lock's form) and written atomically; a file that is not a task is
// reported once and left alone.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { teamTaskSchema, type TaskListService, type TaskUpdateInput, type TeamTask } from '../../tools/teamTasks.js';
import { lockFile } from './fileLock.js';

export function teamTasksDir(configDir: string, team: string): string {
  return join(configDir, 'tasks', team.replace(/[^A-Za-z0-9._-]/g, '-'));
}

export class TaskListStore implements TaskListService {
  private readonly told = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly onProblem: (text: string) => void,
  ) {}

  async create(input: {
    subject: string;
    description: string;
    activeForm?: string;
    metadata?: Record<string, unknown>;
  }): Promise<TeamTask> {
    return this.locked(() => {
      const id = String(Math.max(this.highWater(), ...this.list().map((t) => Number(t.id) || 0)) + 1);
      const task: TeamTask = {
        id,
        subject: input.subject,
        description: input.description,
        ...(input.activeForm ? { activeForm: input.activeForm } : {}),
        status: 'pending',
        blocks: [],
        blockedBy: [],
        ...(input.metadata ? { metadata: input.metadata } : {}),
      };
      this.write(task);
      writeFileSync(join(this.dir, '.highwatermark'), id);
      return task;
    });
  }

  get(id: string): TeamTask | null {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) return null;
    return this.read(`${id}.json`);
  }

  list(): TeamTask[] {
    let files: string[];
    try {
      files = readdirSync(this.dir).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
    } catch {
      return [];
    }
    return files
      .flatMap((f) => {
        const t = this.read(f);
        return t ? [t] : [];
      })
      .sort((a, b) => (Number(a.id) || 0) - (Number(b.id) || 0) || a.id.localeCompare(b.id));
  }

  async update(input: TaskUpdateInput): ReturnType<TaskListService['update']> {
    return this.locked(() => {
      const task = this.get(input.taskId);
      if (!task) return { task: null, updatedFields: [] };
      if (input.status === 'deleted') {
        rmSync(join(this.dir, `${task.id}.json`), { force: true });
        return { task: null, updatedFields: ['deleted'] };
      }
      const updated: string[] = [];
      const set = <K extends keyof TeamTask>(key: K, value: TeamTask[K] | undefined) => {
        if (value === undefined || task[key] === value) return;
        task[key] = value;
        updated.push(String(key));
      };
      const from = task.status;
      set('subject', input.subject);
      set('description', input.description);
      set('activeForm', input.activeForm);
      set('owner', input.owner);
      set('status', input.status);
      for (const [key, other, otherKey] of [
        ['blocks', input.addBlocks, 'blockedBy'],
        ['blockedBy', input.addBlockedBy, 'blocks'],
      ] as const) {
        const fresh = (other ?? []).filter((x) => !task[key].includes(x));
        if (!fresh.length) continue;
        task[key].push(...fresh);
        updated.push(key);
        // The other side of the link, so either task shows it.
        for (const id of fresh) {
          const t = this.get(id);
          if (t && !t[otherKey].includes(task.id)) {
            t[otherKey].push(task.id);
            this.write(t);
          }
        }
      }
      if (input.metadata) {
        const meta = { ...(task.metadata ?? {}) };
        for (const [k, v] of Object.entries(input.metadata)) {
          if (v === null) delete meta[k];
          else meta[k] = v;
        }
        task.metadata = meta;
        updated.push('metadata');
      }
      if (updated.length) this.write(task);
      return {
        task,
        updatedFields: updated,
        ...(from !== task.status ? { statusChange: { from, to: task.status } } : {}),
      };
    });
  }

  private async locked<T>(fn: () => T): Promise<T> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const release = await lockFile(join(this.dir, '.lock'));
    try {
      return fn();
    } finally {
      release();
    }
  }

  private highWater(): number {
    try {
      return Number.parseInt(readFileSync(join(this.dir, '.highwatermark'), 'utf8').trim(), 10) || 0;
    } catch {
      return 0;
    }
  }

  private read(file: string): TeamTask | null {
    const path = join(this.dir, file);
    let raw: string;
    try {
      raw = readFileSync(path, 'utf8');
    } catch {
      return null;
    }
    try {
      const checked = teamTaskSchema.safeParse(JSON.parse(raw));
      if (checked.success) return checked.data;
      this.tell(
        `${path} is not a task (${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); it is skipped`,
      );
    } catch (err) {
      this.tell(`${path} is not JSON (${(err as Error).message}); it is skipped`);
    }
    return null;
  }

  private write(task: TeamTask): void {
    const file = join(this.dir, `${task.id}.json`);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(task, null, 2), { mode: 0o600 });
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  private tell(text: string): void {
    if (this.told.has(text)) return;
    this.told.add(text);
    this.onProblem(text);
  }
}
