// Skills: `.claude/skills/<name>/SKILL.md` (project) and `$CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md`
// (user), YAML front matter (name, description, allowed-tools, model) and a body loaded into the
// conversation only when the Skill tool is called. The SDK's `skills` option selects which are on.
// Plugins add theirs (src/plugins), named `plugin:skill`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SkillEntry } from '../../tools/skill.js';
import { splitFrontMatter } from '../util/frontMatter.js';
import { configDir } from '../util/configDir.js';
import { logWarning } from '../util/log.js';

export interface SkillSourceOptions {
  cwd: string;
  projectRoot?: string;
  env: NodeJS.ProcessEnv;
  sources: string[];
}

/** Every `<name>/SKILL.md` under `root` (missing root → none); a bad one is told through `warn` and skipped. */
export async function loadSkillDir(
  root: string,
  source: SkillEntry['source'],
  warn: (m: string) => void,
): Promise<SkillEntry[]> {
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  const out: SkillEntry[] = [];
  let parse: ((t: string) => unknown) | undefined;
  for (const dirName of names) {
    const file = join(root, dirName, 'SKILL.md');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    try {
      parse ??= (await import('yaml')).parse;
      const { meta: f, body } = splitFrontMatter(text, parse, { required: true });
      const str = (k: string) =>
        typeof f[k] === 'string' && (f[k] as string).trim() ? (f[k] as string).trim() : undefined;
      const description = str('description');
      if (!description) throw new Error('front matter has no description');
      const allowed = f['allowed-tools'];
      const allowedTools = Array.isArray(allowed)
        ? allowed.map(String)
        : typeof allowed === 'string'
          ? allowed
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [];
      const model = str('model');
      out.push({
        name: str('name') ?? dirName,
        description,
        allowedTools,
        ...(model ? { model } : {}),
        body,
        dir: join(root, dirName),
        source,
      });
    } catch (err) {
      warn(`${file}: ${(err as Error).message}; the skill was skipped`);
    }
  }
  return out;
}

export class SkillCatalog {
  private found: SkillEntry[] = [];
  private selection: string[] | 'all' | undefined;
  /** The loaded plugins' skills (already namespaced `plugin:name`), read by the plugin loader. */
  private pluginSkills: () => SkillEntry[] = () => [];

  constructor(
    private readonly o: SkillSourceOptions,
    private readonly warn: (m: string) => void = (m) => logWarning(`${m}`),
  ) {}

  setPluginSkills(skills: () => SkillEntry[]): void {
    this.pluginSkills = skills;
  }

  /** Read the skill folders again; a project skill shadows a user skill of the same name. Plugin skills come first (their names are namespaced). */
  async reload(): Promise<SkillEntry[]> {
    const all: SkillEntry[] = [];
    const add = (list: SkillEntry[]) => {
      for (const s of list) {
        const i = all.findIndex((x) => x.name === s.name);
        if (i >= 0) all.splice(i, 1);
        all.push(s);
      }
    };
    add(this.pluginSkills());
    if (this.o.sources.includes('user'))
      add(await loadSkillDir(join(configDir(this.o.env), 'skills'), 'user', this.warn));
    if (this.o.sources.includes('project'))
      add(await loadSkillDir(join(this.o.projectRoot ?? this.o.cwd, '.claude', 'skills'), 'project', this.warn));
    this.found = all;
    return this.enabled();
  }

  /** The SDK's `skills` option: 'all' or names; an unknown name is an error naming the known ones. */
  select(selection: string[] | 'all'): void {
    if (selection !== 'all') {
      const unknown = selection.filter((n) => !this.found.some((s) => s.name === n));
      if (unknown.length)
        throw new Error(
          `skills: no skill named ${unknown.join(', ')} (found: ${this.found.map((s) => s.name).join(', ') || 'none'})`,
        );
    }
    this.selection = selection;
  }

  enabled(): SkillEntry[] {
    const sel = this.selection;
    return sel === undefined || sel === 'all' ? this.found : this.found.filter((s) => sel.includes(s.name));
  }
}
